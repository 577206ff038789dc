import ArgumentParser
import DiarySDK
import Foundation

/// `diary export`: everything the signed-in user wrote, as one JSON document. On a local store damaged in the middle
/// (which every other command refuses), it reads the store up to the damage without writing to it, so what is
/// readable can be saved.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save everything you wrote as one JSON document (reads a damaged store up to the damage).")
    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("Write the document to this file instead of standard output.", valueName: "file"))
    var output: String?

    /// The exported document.
    struct Document: Encodable {
        struct BookPages: Encodable {
            let book: DiaryBook
            let entries: [Diary]
        }
        let exportedAt: Date
        let user: User
        let entries: [Diary]
        let books: [BookPages]
        let posts: [Post]
        let blogs: [Blog]
    }

    func run() async throws {
        try await withSession(options, salvaging: true) { session in
            let user = try await signedIn(session)
            let sdk = session.sdk
            let entries = try await allItems { try await sdk.diaries.entries(DiaryQuery(includeHidden: true), page: $0) }
            var books: [Document.BookPages] = []
            for book in try await allItems({ try await sdk.books.books(page: $0) }) {
                let pages = try await allItems { try await sdk.diaries.entries(DiaryQuery(bookID: book.id), page: $0) }
                books.append(.init(book: book, entries: pages))
            }
            let posts = try await allItems { try await sdk.posts.posts(by: nil, page: $0) }
            let document = Document(
                exportedAt: Date(), user: user, entries: entries, books: books, posts: posts,
                blogs: try await sdk.blogs.blogs(of: nil))
            let json = Output.encode(document)
            let summary =
                "\(CalendarRenderer.plural(entries.count, "entry", "entries")), \(CalendarRenderer.plural(books.count, "book")), "
                + "\(CalendarRenderer.plural(posts.count, "post")), \(CalendarRenderer.plural(document.blogs.count, "blog"))"
            guard let output else {
                print(json)
                return
            }
            do {
                try Data((json + "\n").utf8).write(to: URL(fileURLWithPath: output), options: .withoutOverwriting)
            } catch {
                throw DiaryError(.unavailable, "could not write \(output): \(error.localizedDescription)")
            }
            session.output.done("Exported \(summary) to \(output).", ["file": output])
        }
    }
}
