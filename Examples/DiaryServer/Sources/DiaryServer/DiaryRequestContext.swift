import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the connection, so a fault can drop it.
struct DiaryRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The largest body any route reads (an upload); each route reads only what its `BodyPolicy` allows.
    var maxUploadSize: Int { BodyPolicy.upload.limit }
}
