import Foundation
import Testing

@testable import DiaryServer

/// The server's settings: where the database URL and the signing secret come from, and that neither is ever said.
@Suite("Server options")
struct ServerOptionsTests {
    static let url = "postgres://diary:s3cret-pass@db.internal:6543/diary_prod"

    /// A file holding `text`, deleted when the test ends.
    final class TemporaryFile {
        let path: String
        init(_ text: String) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("diary-\(UUID().uuidString)").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func theDatabaseURLComesFromTheEnvironmentAndNeedsNoDataDirectory() throws {
        let options = try ServerOptions.parse([], environment: ["DIARY_DATABASE_URL": Self.url])
        #expect(options.databaseURL == Self.url)
        #expect(options.databaseSchema == "public")
        #expect(options.dataDirectory == nil)
    }

    @Test func theDatabaseURLComesFromAFileWithoutItsLineBreak() throws {
        let file = try TemporaryFile(Self.url + "\n")
        let options = try ServerOptions.parse(
            [], environment: ["DIARY_DATABASE_URL_FILE": file.path, "DIARY_DATABASE_SCHEMA": "diary_main"])
        #expect(options.databaseURL == Self.url)
        #expect(options.databaseSchema == "diary_main")
    }

    @Test func anUnreadableOrEmptyURLFileIsRefusedWithoutItsContents() throws {
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse([], environment: ["DIARY_DATABASE_URL_FILE": "/nonexistent/diary-url"])
        }
        let empty = try TemporaryFile("\n")
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse([], environment: ["DIARY_DATABASE_URL_FILE": empty.path])
        }
    }

    @Test func theDatabaseURLIsNeverAFlag() {
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse(["--database-url", Self.url], environment: [:])
        }
    }

    @Test func aMalformedDatabaseURLIsRefusedWithoutRepeatingIt() {
        let bad = "mysql://diary:s3cret-pass@db.internal/diary"
        do {
            _ = try ServerOptions.parse([], environment: ["DIARY_DATABASE_URL": bad])
            Issue.record("a mysql:// URL was accepted")
        } catch {
            #expect(!"\(error)".contains("s3cret-pass"))
            #expect("\(error)".contains("DIARY_DATABASE_URL"))
        }
    }

    @Test func theLogLineAndDescriptionNameHostPortAndDatabaseButNeverTheURL() throws {
        let options = try ServerOptions.parse(
            [], environment: ["DIARY_DATABASE_URL": Self.url, "DIARY_JWT_SECRET": "jwt-shh"])
        #expect(options.storageDescription == "PostgreSQL at db.internal:6543, database diary_prod, schema public")
        for text in [options.storageDescription, "\(options)", String(reflecting: options)] {
            #expect(!text.contains("s3cret-pass"))
            #expect(!text.contains("postgres://"))
            #expect(!text.contains("jwt-shh"))
        }
    }

    @Test func aDataDirectoryBesideADatabaseIsUnusedAndSaidSo() throws {
        let options = try ServerOptions.parse(["--data-dir", "/tmp/diary-data"], environment: ["DIARY_DATABASE_URL": Self.url])
        #expect(options.storageDescription.hasPrefix("PostgreSQL"))
        #expect(options.warnings.contains { $0.contains("--data-dir") })
    }

    @Test func inMemoryAndADatabaseExcludeEachOther() {
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse(["--in-memory"], environment: ["DIARY_DATABASE_URL": Self.url])
        }
    }

    @Test func withoutADatabaseTheFileStoreIsAsBefore() throws {
        let options = try ServerOptions.parse(["--data-dir", "/tmp/diary-data"], environment: [:])
        #expect(options.databaseURL == nil)
        #expect(options.storageDescription == "the file store in /tmp/diary-data")
        #expect(throws: OptionsError.self) { try ServerOptions.parse([], environment: [:]) }
    }

    @Test func theSigningSecretComesFromAFile() throws {
        let file = try TemporaryFile("from-a-file\n")
        let options = try ServerOptions.parse(
            ["--in-memory"], environment: ["DIARY_JWT_SECRET_FILE": file.path, "DIARY_JWT_SECRET": "from-env"])
        #expect(options.jwtSecret == "from-a-file")
        #expect(options.warnings.isEmpty)
    }

    @Test func theSecretFlagStillWorksButWarns() throws {
        let options = try ServerOptions.parse(["--in-memory", "--jwt-secret", "on-the-command-line"], environment: [:])
        #expect(options.jwtSecret == "on-the-command-line")
        #expect(options.warnings.count == 1)
        #expect(options.warnings.allSatisfy { $0.contains("ps") && !$0.contains("on-the-command-line") })
    }

    @Test func helpIsAHelpRequestThatDocumentsTheVariables() {
        do {
            _ = try ServerOptions.parse(["--help"], environment: [:])
            Issue.record("--help parsed as options")
        } catch let error as OptionsError {
            #expect(error.isHelp)
            for name in ["DIARY_DATABASE_URL", "DIARY_DATABASE_URL_FILE", "DIARY_DATABASE_SCHEMA", "DIARY_JWT_SECRET_FILE"] {
                #expect(error.message.contains(name))
            }
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect((try? ServerOptions.parse(["--bogus"], environment: [:])) == nil)
    }

    @Test func aTestWorldsSchemaIsALowercaseIdentifier() {
        let schema = testWorldSchema("0F8E2A4C-1B3D-4E5F-8A9B-0C1D2E3F4A5B")
        #expect(schema == "w_0f8e2a4c1b3d4e5f8a9b0c1d2e3f4a5b")
    }

    // MARK: - The configuration file

    @Test func aConfigurationFileSetsWhatTheEnvironmentAndFlagsLeaveUnset() throws {
        let file = try TemporaryFile(#"""
            {"DIARY_PORT": 9090, "DIARY_HOSTNAME": "0.0.0.0", "DIARY_DATABASE_URL": "\#(Self.url)",
             "DIARY_DATABASE_SCHEMA": "from_file", "DIARY_TEST_MODE": true, "DIARY_CHANGE_LOG_RETENTION": 3600}
            """#)
        let options = try ServerOptions.parse(
            ["--config", file.path, "--hostname", "127.0.0.1"], environment: ["DIARY_DATABASE_SCHEMA": "from_env"])
        #expect(options.port == 9090)
        #expect(options.hostname == "127.0.0.1", "a flag wins over the file")
        #expect(options.databaseSchema == "from_env", "the environment wins over the file")
        #expect(options.databaseURL == Self.url)
        #expect(options.testMode)
        #expect(options.changeLogRetention == 3600)
        #expect(options.configFile?.path == file.path)
        let fromEnvironment = try ServerOptions.parse(
            [], environment: ["DIARY_CONFIG_FILE": file.path, "DIARY_PORT": "7070"])
        #expect(fromEnvironment.port == 7070)
        #expect(fromEnvironment.databaseSchema == "from_file")
    }

    @Test func aSettingInTheEnvironmentWinsOverItsFileFormInTheConfigurationFile() throws {
        let fromFile = "postgres://diary@db.internal/from_file"
        let secret = try TemporaryFile(fromFile)
        let jwt = try TemporaryFile("a secret from the file's secret file")
        let config = try TemporaryFile(#"{"DIARY_DATABASE_URL_FILE": "\#(secret.path)", "DIARY_JWT_SECRET_FILE": "\#(jwt.path)"}"#)
        let options = try ServerOptions.parse(
            ["--config", config.path], environment: ["DIARY_DATABASE_URL": Self.url, "DIARY_JWT_SECRET": "from the environment"])
        #expect(options.databaseURL == Self.url)
        #expect(options.jwtSecret == "from the environment")
        let fileOnly = try ServerOptions.parse(["--config", config.path], environment: [:])
        #expect(fileOnly.databaseURL == fromFile)
        #expect(fileOnly.jwtSecret == "a secret from the file's secret file")
    }

    @Test func aConfigurationFileWithAnUnknownKeyOrAWrongValueIsRefusedWithoutItsValues() throws {
        let typo = try TemporaryFile(#"{"DIARY_DATABSE_URL": "\#(Self.url)"}"#)
        let unknown = #expect(throws: OptionsError.self) { try ServerOptions.parse(["--config", typo.path], environment: [:]) }
        #expect(unknown?.message.contains("DIARY_DATABSE_URL") == true)
        #expect(unknown?.message.contains("s3cret") == false)
        for text in [#"["DIARY_PORT"]"#, #"{"DIARY_PORT": 80.5}"#, #"{"DIARY_PORT": null}"#, "{", #"{"DIARY_JWT_SECRET": {"a": 1}}"#] {
            let file = try TemporaryFile(text)
            #expect(throws: OptionsError.self, "\(text)") { try ServerOptions.parse(["--config", file.path], environment: [:]) }
        }
        #expect(throws: OptionsError.self) { try ServerOptions.parse(["--config", "/nonexistent/diary.json"], environment: [:]) }
        #expect(throws: OptionsError.self) { try ServerOptions.parse(["--in-memory", "--config"], environment: [:]) }
    }

    @Test func maintenanceSettingsComeFromTheEnvironment() throws {
        let options = try ServerOptions.parse(
            ["--in-memory"], environment: ["DIARY_CHANGE_LOG_RETENTION": "86400", "DIARY_MAINTENANCE_INTERVAL": "0"])
        #expect(options.changeLogRetention == 86400)
        #expect(options.maintenanceInterval == 0)
        let defaults = try ServerOptions.parse(["--in-memory"], environment: [:])
        #expect(defaults.changeLogRetention == 7 * 24 * 60 * 60)
        #expect(defaults.maintenanceInterval == 3600)
        #expect(defaults.changeLogRows == nil)
    }

    @Test func changeLogRetentionComesFromFlagsTheEnvironmentOrTheFileAndRowsMustBePositive() throws {
        let flags = try ServerOptions.parse(
            ["--in-memory", "--change-log-retention", "600", "--change-log-rows", "50"],
            environment: ["DIARY_CHANGE_LOG_RETENTION": "86400", "DIARY_CHANGE_LOG_ROWS": "9"])
        #expect(flags.changeLogRetention == 600, "a flag wins over the environment")
        #expect(flags.changeLogRows == 50)
        let file = try TemporaryFile(#"{"DIARY_CHANGE_LOG_ROWS": 2000}"#)
        #expect(try ServerOptions.parse(["--in-memory", "--config", file.path], environment: [:]).changeLogRows == 2000)
        for bad in ["0", "-3", "many"] {
            #expect(throws: OptionsError.self, "\(bad)") {
                try ServerOptions.parse(["--in-memory", "--change-log-rows", bad], environment: [:])
            }
            #expect(throws: OptionsError.self, "\(bad)") {
                try ServerOptions.parse(["--in-memory"], environment: ["DIARY_CHANGE_LOG_ROWS": bad])
            }
        }
    }
}
