import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// The redaction rule (`Redactor`, the TraceFormat article): no secret, and no fragment of one (a run of
/// four or more letters, digits or underscores), reaches anything the demo writes, in any
/// scenario and any trace format.
///
/// Every config below is full of secrets: secret options in every service, secret SQL in a
/// migration that fails, a secret database path, numbers, lists and objects marked secret,
/// secrets that are substrings of other secrets and of the SQL, and the session token the
/// `session` provider restores at run time. The secrets are spelled so that no public text of
/// the demo (service names, event words, file names) contains a fragment of them by chance:
/// whatever is found came from a secret.
@Suite("No fragment of a secret reaches any output", .timeLimit(.minutes(5)))
struct SecretLeakTests {
    /// The secret values written into the configs below (numbers as the loader prints them).
    static let writtenSecrets: [String] = [
        // configuration
        "ZQK_apikey_Vx81", "4815162342", "zqk_db_owner", "Pw$ZQK-horse-Battery-77", "7315942", "8426053",
        // database: path, migrations (names and SQL), a secret that contains another secret
        "ZQKvault_db.zqkdb", "mk_zqk_ledger", "CREATE TABLE zqk_ledger (MIGSECRET_acct INTEGER, zqk_balance TEXT);",
        "zqk_bad_backfill", "INSERT INTO zqk_ledger SELECT MIGSECRET_zqgone_col, 'zqkLiteral horse' FROM zqk_ledger;",
        "ZQK_apikey_Vx81_replica",
        // session, simulated nodes
        String(1234567.7654321), "ZQKtok-rmtz-x5521", "zqk.rdonly9", "zqk.write.all", "zqkWriteKey_7f3q",
        // the happy config, the corrupt and missing files, the invalid config
        "ZQKhappy_zq_sekrit", "ZQKentry_vault.zqkdb", "ZQKcorrupt_zqstore.zqkdb", "ZQKhidden_dir/zqk_cfgfile.zqkjson",
        "ZQKoutcome_typo",
        "-4815162342",
        // the built-in stories' session tokens (StoryApp registers them as secrets)
        "tok-1-s3cr3t", "tok-2-s3cr3t", "tok-3-s3cr3t",
    ]

    @Test("every scenario and every trace format, over configs full of secrets")
    func nothingSecretIsWritten() async throws {
        let folder = try SecretFolder()
        defer { folder.remove() }
        var written: [(label: String, text: String)] = []
        var statuses: [String: Set<Int32>] = [:]
        for (name, config) in folder.configs {
            for format in TraceFormat.all.map(\.name) {
                // A data folder of its own: other tests run the demo's stories at the same time.
                let arguments = [
                    "--config", config, "--scenario", "all", "--trace", format, "--retries", "1", "--data-dir",
                    folder.path + "/data",
                ]
                let capture = CapturedOutput()
                let status = await DemoCommand.main(arguments, output: capture.output())
                statuses[name, default: []].insert(status)
                written.append(("\(name) --trace \(format) (stdout)", capture.standardOutput))
                written.append(("\(name) --trace \(format) (stderr)", capture.standardError))
            }
            // The trace written to a file with --output, too.
            let file = folder.path + "/\(name)-trace.jsonl"
            let capture = CapturedOutput()
            _ = await DemoCommand.main(
                ["--config", config, "--trace", "jsonl", "--output", file, "--data-dir", folder.path + "/data"],
                output: capture.output())
            written.append(("\(name) --output (stdout)", capture.standardOutput))
            written.append(("\(name) --output (stderr)", capture.standardError))
            written.append(("\(name) --output (file)", (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""))
        }

        // The runs did what each config is for, so the secrets went through the paths that print errors.
        #expect(statuses["failing-migration"] == [1])
        #expect(statuses["happy"] == [0])
        #expect(statuses["entry-point-fails"] == [0])
        #expect(statuses["corrupt"] == [1])
        #expect(statuses["missing-settings"] == [1])
        #expect(statuses["invalid"] == [2])
        let everything = written.map(\.text).joined(separator: "\n")
        #expect(everything.contains("migration 2"), "the secret migration failed and was reported")
        #expect(everything.contains("signed in as ada"), "the happy config restored the session")
        #expect(everything.contains("launch ✗"), "launch failed on a database without its table")
        #expect(everything.contains("<redacted>"), "secrets were met and redacted")

        // The session token the happy config's migration generated, read from its database file.
        let token = try folder.sessionToken()
        #expect(token.count == 32)

        var leaks: [String] = []
        for secret in Self.writtenSecrets + [token] {
            for needle in Set([secret] + Self.fragments(of: secret)) {
                for (label, text) in written {
                    if let place = Self.excerpt(of: needle, in: text) {
                        leaks.append("'\(needle)' (of secret '\(secret)') in \(label): \(place)")
                    }
                }
            }
        }
        #expect(leaks.isEmpty, "\(leaks.count) leaks:\n\(leaks.prefix(200).joined(separator: "\n"))")
    }

    /// `needle` in `text` with up to 60 characters either side, or `nil` when absent.
    static func excerpt(of needle: String, in text: String) -> String? {
        guard let range = text.range(of: needle) else { return nil }
        let start = text.index(range.lowerBound, offsetBy: -60, limitedBy: text.startIndex) ?? text.startIndex
        let end = text.index(range.upperBound, offsetBy: 60, limitedBy: text.endIndex) ?? text.endIndex
        return "…" + String(text[start..<end]) + "…"
    }

    /// The fragments the redaction rule promises to hide: maximal runs of letters, digits and
    /// `_`, and their `_`-separated parts, of four or more characters (written here
    /// independently of the `Redactor`).
    static func fragments(of secret: String) -> [String] {
        var runs: [String] = []
        var run = ""
        for scalar in secret.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_" {
                run.unicodeScalars.append(scalar)
            } else {
                runs.append(run)
                run = ""
            }
        }
        runs.append(run)
        let pieces = runs + runs.flatMap { $0.split(separator: "_").map(String.init) }
        return pieces.filter { $0.unicodeScalars.count >= 4 }
    }
}

/// A temporary folder with the secret-laden configs, the settings file they read and a
/// corrupt database file.
private struct SecretFolder {
    let path: String
    let configs: [(name: String, path: String)]

    static let settings = """
        { "appName": "Demo", "environment": "development", "deepLinkScheme": "demo", "theme": "dark",
          "routes": { "/profile": "ProfileScreen" } }
        """

    /// Secret options on the configuration service, shared by the configs.
    static let configuration = """
        { "name": "configuration", "provider": "configuration",
          "options": { "path": "settings/app-settings.json", "apiKey": "ZQK_apikey_Vx81", "pin": 4815162342,
                       "nested": { "user": "zqk_db_owner", "password": "Pw$ZQK-horse-Battery-77",
                                   "ports": [7315942, 8426053] } },
          "secretOptions": ["apiKey", "pin", "nested"] }
        """

    init() throws {
        path = NSTemporaryDirectory() + "secret-leak-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/settings", withIntermediateDirectories: true)
        try Self.settings.write(toFile: path + "/settings/app-settings.json", atomically: true, encoding: .utf8)
        // Not a database: opening it fails, and the error names the (secret) path.
        try String(repeating: "this is not an SQLite database file. ", count: 200)
            .write(toFile: path + "/ZQKcorrupt_zqstore.zqkdb", atomically: true, encoding: .utf8)
        var configs: [(String, String)] = []
        for (name, text) in Self.texts {
            let file = path + "/\(name).json"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            configs.append((name, file))
        }
        self.configs = configs
    }

    static let texts: [(String, String)] = [
        (
            "failing-migration",
            """
            { "version": 1, "services": [
              \(configuration),
              { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"],
                "options": { "path": "ZQKvault_db.zqkdb", "replica": "ZQK_apikey_Vx81_replica", "migrations": [
                  { "version": 1, "name": "mk_zqk_ledger",
                    "sql": "CREATE TABLE zqk_ledger (MIGSECRET_acct INTEGER, zqk_balance TEXT);" },
                  { "version": 2, "name": "zqk_bad_backfill",
                    "sql": "INSERT INTO zqk_ledger SELECT MIGSECRET_zqgone_col, 'zqkLiteral horse' FROM zqk_ledger;" }
                ] },
                "secretOptions": ["path", "migrations", "replica"], "timeoutMs": 5000, "retry": 2 },
              { "name": "session", "provider": "session", "dependsOn": ["database"],
                "options": { "deviceKey": 1234567.7654321 }, "secretOptions": ["deviceKey"] },
              { "name": "remote", "provider": "simulated", "dependsOn": ["configuration"],
                "options": { "durationMs": 1, "outcomes": ["transient", "ok"], "token": "ZQKtok-rmtz-x5521",
                             "scopes": ["zqk.rdonly9", "zqk.write.all"] },
                "secretOptions": ["token", "scopes"], "retry": { "maxAttempts": 2 } },
              { "name": "analytics", "provider": "simulated", "dependsOn": ["remote"],
                "options": { "outcomes": ["permanent"], "flag": true, "writeKey": "zqkWriteKey_7f3q" },
                "secretOptions": ["flag", "writeKey"] }
            ], "entryPoints": ["launch", "deeplink"] }
            """
        ),
        (
            "happy",
            """
            { "version": 1, "services": [
              \(configuration),
              { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"],
                "options": { "path": "happy.sqlite", "replica": "ZQK_apikey_Vx81_replica", "migrations": [
                  { "version": 1, "name": "create_sessions",
                    "sql": "CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, token TEXT NOT NULL, created_at TEXT);" },
                  { "version": 2, "name": "create_launches",
                    "sql": "CREATE TABLE launches (id INTEGER PRIMARY KEY AUTOINCREMENT, entry_point TEXT NOT NULL);" },
                  { "version": 3, "name": "seed_session",
                    "sql": "INSERT INTO sessions (user_id, token) VALUES ('ada', lower(hex(randomblob(16))));" }
                ] },
                "secretOptions": ["replica"] },
              { "name": "session", "provider": "session", "dependsOn": ["database"],
                "options": { "deviceKey": 1234567.7654321 }, "secretOptions": ["deviceKey"] },
              { "name": "sync", "provider": "simulated", "dependsOn": ["session"],
                "options": { "outcomes": ["transient", "ok"], "syncKey": "ZQKhappy_zq_sekrit" },
                "secretOptions": ["syncKey"] }
            ], "entryPoints": ["launch", "deeplink"] }
            """
        ),
        (
            "entry-point-fails",
            """
            { "version": 1, "services": [
              \(configuration),
              { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"],
                "options": { "path": "ZQKentry_vault.zqkdb", "migrations": [
                  { "version": 1, "name": "create_sessions",
                    "sql": "CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, token TEXT NOT NULL, created_at TEXT);" }
                ] },
                "secretOptions": ["path"] },
              { "name": "session", "provider": "session", "dependsOn": ["database"] }
            ], "entryPoints": ["launch", "deeplink"] }
            """
        ),
        (
            "corrupt",
            """
            { "version": 1, "services": [
              \(configuration),
              { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"],
                "options": { "path": "ZQKcorrupt_zqstore.zqkdb" }, "secretOptions": ["path"] },
              { "name": "session", "provider": "session", "dependsOn": ["database"] }
            ], "entryPoints": ["launch", "deeplink"] }
            """
        ),
        (
            "missing-settings",
            """
            { "version": 1, "services": [
              { "name": "configuration", "provider": "configuration",
                "options": { "path": "ZQKhidden_dir/zqk_cfgfile.zqkjson", "apiKey": "ZQK_apikey_Vx81" },
                "secretOptions": ["path", "apiKey"] }
            ], "entryPoints": [] }
            """
        ),
        (
            "invalid",
            """
            { "version": 1, "services": [
              \(configuration),
              { "name": "remote", "provider": "simulated", "dependsOn": ["configuration"],
                "options": { "durationMs": -4815162342, "outcomes": ["ok", "ZQKoutcome_typo"] },
                "secretOptions": ["durationMs", "outcomes"] }
            ] }
            """
        ),
    ]

    /// The token the happy config's seed migration generated, read from its database.
    func sessionToken() throws -> String {
        let database = try Database(path: path + "/happy.sqlite", migrations: [])
        defer { try? database.close() }
        return try database.query("SELECT token FROM sessions ORDER BY id DESC LIMIT 1").first?["token"]?.string ?? ""
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
