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

    /// Four 10 MB images plus multipart framing.
    var maxUploadSize: Int { 48 * 1024 * 1024 }
}
