import Foundation

// The fast readers of the values in the hottest responses: pages of posts (the community feed) and of diary
// entries (every calendar and list screen). Each reads the JSON
// its `Decodable` conformance reads; `WireJSONTests` checks both give the same values for every case.

extension WireReader {
    package mutating func readDate() throws -> Date {
        guard let date = WireDate.date(from: try readString()) else { throw gaveUp("not a wire date") }
        return date
    }

    package mutating func readURL() throws -> URL {
        guard let url = URL(string: try readString()) else { throw gaveUp("not a URL") }
        return url
    }

    /// Reads a value, or `nil` for `null`.
    package mutating func readOptional<Value>(_ read: (inout WireReader) throws -> Value) throws -> Value? {
        try readNull() ? nil : try read(&self)
    }
}

extension EntityID: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        guard let uuid = WireText.uuid(try reader.readString()) else { throw reader.gaveUp("not a UUID") }
        self.init(uuid)
    }
}

extension LocalDate: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        guard let day = LocalDate(try reader.readString()) else { throw reader.gaveUp("not a day") }
        self = day
    }
}

extension PageCursor: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        self.init(rawValue: try reader.readString())
    }
}

extension ImageReference: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var id: Attachment.ID?
        var contentType = ""
        var byteCount = 0
        try reader.readObject { reader, key in
            switch key {
            case "id": try fields.mark(0, reader); id = try Attachment.ID(wire: &reader)
            case "contentType": try fields.mark(1, reader); contentType = try reader.readString()
            case "byteCount": try fields.mark(2, reader); byteCount = try reader.readInt()
            default: try reader.skipValue()
            }
        }
        try fields.require(3, reader)
        self.init(id: id!, contentType: contentType, byteCount: byteCount)
    }
}

extension AuthorSummary: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var id: User.ID?
        var nickname = ""
        var avatar: ImageReference?
        try reader.readObject { reader, key in
            switch key {
            case "id": try fields.mark(0, reader); id = try User.ID(wire: &reader)
            case "nickname": try fields.mark(1, reader); nickname = try reader.readString()
            case "avatar": try fields.mark(2, reader); avatar = try reader.readOptional { try ImageReference(wire: &$0) }
            default: try reader.skipValue()
            }
        }
        try fields.require(2, reader)
        self.init(id: id!, nickname: nickname, avatar: avatar)
    }
}

extension BlogImport: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var blogID: Blog.ID?
        var guid: String?
        var url: URL?
        try reader.readObject { reader, key in
            switch key {
            case "blogID": try fields.mark(0, reader); blogID = try Blog.ID(wire: &reader)
            case "guid": try fields.mark(1, reader); guid = try reader.readOptional { try $0.readString() }
            case "url": try fields.mark(2, reader); url = try reader.readOptional { try $0.readURL() }
            default: try reader.skipValue()
            }
        }
        try fields.require(1, reader)
        self.init(blogID: blogID!, guid: guid, url: url)
    }
}

extension PostSource: WireJSONDecodable {
    /// Reads `{"type", …}`: `original`, `diary` with `id`, or `blog` with the ``BlogImport`` members.
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var type: String?
        var id: Diary.ID?
        var blogID: Blog.ID?
        var guid: String?
        var url: URL?
        try reader.readObject { reader, key in
            switch key {
            case "type": try fields.mark(0, reader); type = try reader.readString()
            case "id": try fields.mark(1, reader); id = try Diary.ID(wire: &reader)
            case "blogID": try fields.mark(2, reader); blogID = try Blog.ID(wire: &reader)
            case "guid": try fields.mark(3, reader); guid = try reader.readOptional { try $0.readString() }
            case "url": try fields.mark(4, reader); url = try reader.readOptional { try $0.readURL() }
            default: try reader.skipValue()
            }
        }
        switch type {
        case "original": self = .original
        case "diary":
            guard let id else { throw reader.gaveUp("a diary source without an id") }
            self = .diary(id)
        case "blog":
            guard let blogID else { throw reader.gaveUp("a blog source without a blogID") }
            self = .blog(BlogImport(blogID: blogID, guid: guid, url: url))
        default: throw reader.gaveUp("not a known post source")
        }
    }
}

extension Post: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var id: Post.ID?
        var author: AuthorSummary?
        var isMine = false
        var isAnonymous = false
        var title = ""
        var body = ""
        var tags: [String] = []
        var images: [ImageReference] = []
        var source: PostSource?
        var day: LocalDate?
        var likeCount = 0
        var commentCount = 0
        var isLiked = false
        var createdAt: Date?
        var updatedAt: Date?
        try reader.readObject { reader, key in
            switch key {
            case "id": try fields.mark(0, reader); id = try Post.ID(wire: &reader)
            case "isMine": try fields.mark(1, reader); isMine = try reader.readBool()
            case "isAnonymous": try fields.mark(2, reader); isAnonymous = try reader.readBool()
            case "title": try fields.mark(3, reader); title = try reader.readString()
            case "body": try fields.mark(4, reader); body = try reader.readString()
            case "tags": try fields.mark(5, reader); tags = try reader.readArray { try $0.readString() }
            case "images": try fields.mark(6, reader); images = try reader.readArray { try ImageReference(wire: &$0) }
            case "source": try fields.mark(7, reader); source = try PostSource(wire: &reader)
            case "day": try fields.mark(8, reader); day = try LocalDate(wire: &reader)
            case "likeCount": try fields.mark(9, reader); likeCount = try reader.readInt()
            case "commentCount": try fields.mark(10, reader); commentCount = try reader.readInt()
            case "isLiked": try fields.mark(11, reader); isLiked = try reader.readBool()
            case "createdAt": try fields.mark(12, reader); createdAt = try reader.readDate()
            case "updatedAt": try fields.mark(13, reader); updatedAt = try reader.readDate()
            case "author": try fields.mark(14, reader); author = try reader.readOptional { try AuthorSummary(wire: &$0) }
            default: try reader.skipValue()
            }
        }
        try fields.require(14, reader)
        self.init(
            id: id!, author: author, isMine: isMine, isAnonymous: isAnonymous, title: title, body: body, tags: tags,
            images: images, source: source!, day: day!, likeCount: likeCount, commentCount: commentCount,
            isLiked: isLiked, createdAt: createdAt!, updatedAt: updatedAt!)
    }
}

extension Page: WireJSONDecodable where Item: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var items: [Item] = []
        var isLastPage = false
        var size = 0
        var nextCursor: PageCursor?
        var pageNumber: Int?
        var totalPages: Int?
        try reader.readObject { reader, key in
            switch key {
            case "items": try fields.mark(0, reader); items = try reader.readArray { try Item(wire: &$0) }
            case "isLastPage": try fields.mark(1, reader); isLastPage = try reader.readBool()
            case "size": try fields.mark(2, reader); size = try reader.readInt()
            case "nextCursor": try fields.mark(3, reader); nextCursor = try reader.readOptional { try PageCursor(wire: &$0) }
            case "pageNumber": try fields.mark(4, reader); pageNumber = try reader.readOptional { try $0.readInt() }
            case "totalPages": try fields.mark(5, reader); totalPages = try reader.readOptional { try $0.readInt() }
            default: try reader.skipValue()
            }
        }
        try fields.require(3, reader)
        self.init(
            items: items, nextCursor: nextCursor, pageNumber: pageNumber, totalPages: totalPages, isLastPage: isLastPage,
            size: size)
    }
}

extension Diary: WireJSONDecodable {
    package init(wire reader: inout WireReader) throws {
        var fields = WireFields()
        var id: Diary.ID?
        var authorID: User.ID?
        var day: LocalDate?
        var title = ""
        var body = ""
        var tags: [String] = []
        var images: [ImageReference] = []
        var visibility = Visibility.private
        var isHidden = false
        var isFavourite = false
        var createdAt: Date?
        var updatedAt: Date?
        var bookID: DiaryBook.ID?
        var mood: Mood?
        var deletedAt: Date?
        try reader.readObject { reader, key in
            switch key {
            case "id": try fields.mark(0, reader); id = try Diary.ID(wire: &reader)
            case "authorID": try fields.mark(1, reader); authorID = try User.ID(wire: &reader)
            case "day": try fields.mark(2, reader); day = try LocalDate(wire: &reader)
            case "title": try fields.mark(3, reader); title = try reader.readString()
            case "body": try fields.mark(4, reader); body = try reader.readString()
            case "tags": try fields.mark(5, reader); tags = try reader.readArray { try $0.readString() }
            case "images": try fields.mark(6, reader); images = try reader.readArray { try ImageReference(wire: &$0) }
            case "visibility":
                try fields.mark(7, reader)
                guard let value = Visibility(rawValue: try reader.readString()) else { throw reader.gaveUp("visibility") }
                visibility = value
            case "isHidden": try fields.mark(8, reader); isHidden = try reader.readBool()
            case "isFavourite": try fields.mark(9, reader); isFavourite = try reader.readBool()
            case "createdAt": try fields.mark(10, reader); createdAt = try reader.readDate()
            case "updatedAt": try fields.mark(11, reader); updatedAt = try reader.readDate()
            case "bookID": try fields.mark(12, reader); bookID = try reader.readOptional { try DiaryBook.ID(wire: &$0) }
            case "mood": try fields.mark(13, reader); mood = try reader.readOptional { Mood(rawValue: try $0.readString()) }
            case "deletedAt": try fields.mark(14, reader); deletedAt = try reader.readOptional { try $0.readDate() }
            default: try reader.skipValue()
            }
        }
        try fields.require(12, reader)
        self.init(
            id: id!, authorID: authorID!, bookID: bookID, day: day!, title: title, body: body, mood: mood, tags: tags,
            images: images, visibility: visibility, isHidden: isHidden, isFavourite: isFavourite, createdAt: createdAt!,
            updatedAt: updatedAt!, deletedAt: deletedAt)
    }
}
