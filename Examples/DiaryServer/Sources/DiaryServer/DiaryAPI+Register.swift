import Hummingbird

extension DiaryAPI {
    /// Registers every route of docs/openapi.yaml (the probes first) (and the test routes in test mode).
    func registerAll(_ router: Router<DiaryRequestContext>) {
        registerOperations(router)
        registerAccounts(router)
        registerDiaries(router)
        registerPosts(router)
        registerSocial(router)
        registerBlogs(router)
        registerAttachments(router)
        registerChanges(router)
        registerTesting(router)
    }
}
