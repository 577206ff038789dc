@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

extension DiaryAPI {
    func registerBlogs(_ router: Router<DiaryRequestContext>) {
        route(router, .post, "/v1/blogs") { call in
            try .created(try await call.engine.register(try call.decode(BlogDraft.self)))
        }
        route(router, .patch, "/v1/blogs/:blogID") { call in
            try .ok(try await call.engine.updateBlog(try call.id("blogID", Blog.self), try call.decode(BlogEdit.self)))
        }
        route(router, .delete, "/v1/blogs/:blogID") { call in
            try await call.engine.deleteBlog(try call.id("blogID", Blog.self))
            return .noContent
        }
        route(router, .put, "/v1/blogs/:blogID/primary", body: .empty) { call in
            try .ok(try await call.engine.setPrimary(try call.id("blogID", Blog.self)))
        }
        route(router, .get, "/v1/me/blogs") { call in
            try .ok(try await call.engine.blogs(of: nil))
        }
        route(router, .get, "/v1/users/:userID/blogs") { call in
            try .ok(try await call.engine.blogs(of: try call.id("userID", User.self)))
        }
        route(router, .get, "/v1/blogs/:blogID") { call in
            try .ok(try await call.engine.blog(try call.id("blogID", Blog.self)))
        }
        route(router, .put, "/v1/blogs/:blogID/sync-state") { call in
            try .ok(try await call.engine.recordSync(try call.id("blogID", Blog.self), try call.decode(BlogSyncState.self)))
        }
        route(router, .post, "/v1/blogs/:blogID/items", body: .content) { call in
            let outcome = try await call.engine.importItem(try call.decode(ImportedItem.self), into: try call.id("blogID", Blog.self))
            return try .ok(Wrapped(value: outcome))
        }
        route(router, .post, "/v1/blogs/:blogID/items/batch", body: .contentBatch) { call in
            let batch = try call.decode(ImportBatch.self)
            let results = try await call.engine.importItems(batch.items, into: try call.id("blogID", Blog.self))
            return try .ok(ImportBatchResults(results: results))
        }
    }
}

/// The body of `POST /v1/blogs/{blogID}/items/batch`: up to ``ImportedItem/maximumBatchSize`` items.
struct ImportBatch: Codable, Sendable {
    var items: [ImportedItem]
}

/// Its answer: each item's result, in order.
struct ImportBatchResults: Codable, Sendable {
    var results: [ImportItemResult]
}
