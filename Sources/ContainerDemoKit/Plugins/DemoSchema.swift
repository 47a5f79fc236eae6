public import Plugins

/// The demo app's database schema: the `sqlite` provider's default in the demo's registry
/// (``/Container/ProviderRegistry/demo``), for a demo config whose database lists no
/// `migrations` (the `cache` of `Configs/reload/v1.json`, the examples of `Configs/README.md`).
///
/// `Configs/app.json` lists its own migrations (these tables, and a seeded session).
public enum DemoSchema {
    /// `sessions` (read by `session`), `launches` (written by ``LaunchEntryPoint``) and `items`
    /// with three demo rows (read by ``PushDetailProvider``), as versions 1 to 3.
    public static let migrations: [Migration] = [
        Migration.sessionsTable,
        Migration(
            version: 2, name: "create_launches",
            sql: """
                CREATE TABLE launches (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    entry_point TEXT NOT NULL,
                    launched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                );
                """),
        Migration(version: 3, name: "create_items", sql: itemsTable),
    ]

    /// The `items` table ``PushDetailProvider`` reads, with three demo items (`A-17`, `B-3`, `C-8`).
    public static let itemsTable = """
        CREATE TABLE items (id TEXT PRIMARY KEY, title TEXT NOT NULL);
        INSERT INTO items (id, title) VALUES
            ('A-17', 'Your order has shipped'), ('B-3', 'A new message from Grace'), ('C-8', 'Your invoice is ready');
        """
}
