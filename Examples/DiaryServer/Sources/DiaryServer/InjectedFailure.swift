/// The internal error a `fail` fault raises (test mode): a stand-in for a bug or a lost database, whose text must
/// reach the server's log and never the client.
struct InjectedFailure: Error, CustomStringConvertible {
    var description: String { "injected internal failure (fault rule 'fail')" }
}
