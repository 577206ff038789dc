import Foundation

extension FileStoreBackend {
    /// The per-user data directory for the default store: `$XDG_DATA_HOME/diarysdk` (or `~/.local/share/diarysdk`)
    /// on Linux, `Application Support/DiarySDK` on Apple platforms.
    public static var defaultDirectory: URL {
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent("Library/Application Support")
            return base.appendingPathComponent("DiarySDK", isDirectory: true)
        #else
            let environment = ProcessInfo.processInfo.environment
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("diarysdk", isDirectory: true)
            }
            let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
            return home.appendingPathComponent(".local/share/diarysdk", isDirectory: true)
        #endif
    }
}
