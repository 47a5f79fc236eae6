import Container

/// The Data Protection class of a `sqlite` database's files on Apple platforms: when the
/// system lets the app read and write them (the `fileProtection` option).
///
/// Passed to Apple's SQLite as the matching `SQLITE_OPEN_FILEPROTECTION_*` open flag, which
/// applies to the files SQLite creates (the database, its `-wal`, `-shm` and `-journal` files),
/// on iOS, tvOS, watchOS and visionOS devices. Elsewhere (the simulator, Mac Catalyst, macOS,
/// Linux) the option is checked the same way and has no effect. CI runs on Linux only, so the
/// Apple behaviour is not verified by it.
///
/// Choose ``completeUntilFirstUserAuthentication`` for a database that a push notification,
/// a background task or a widget may open while the device is locked: ``complete`` makes the
/// files unreadable whenever the device is locked, and a launch before the device's first
/// unlock since it started cannot open any of them (``DatabaseError/isProtectedDataUnavailable``).
public struct SQLiteFileProtection: Sendable, Hashable, CustomStringConvertible {
    /// The word in the config file.
    public let word: String
    private init(_ word: String) { self.word = word }

    /// `complete`: readable only while the device is unlocked (`NSFileProtectionComplete`).
    public static let complete = SQLiteFileProtection("complete")
    /// `completeUnlessOpen`: a file open when the device locks stays usable; new files can be
    /// created while locked, existing ones not opened (`NSFileProtectionCompleteUnlessOpen`).
    public static let completeUnlessOpen = SQLiteFileProtection("completeUnlessOpen")
    /// `completeUntilFirstUserAuthentication`: readable once the device was unlocked after it
    /// started, also while it is locked again (`NSFileProtectionCompleteUntilFirstUserAuthentication`,
    /// the system's default class for an app's files).
    public static let completeUntilFirstUserAuthentication = SQLiteFileProtection(
        "completeUntilFirstUserAuthentication")
    /// `none`: no protection, readable even before the first unlock (`NSFileProtectionNone`).
    /// Named `noProtection` in Swift, so that it cannot be mistaken for an absent option (`nil`).
    public static let noProtection = SQLiteFileProtection("none")

    /// Every class, in documentation order.
    public static let all: [SQLiteFileProtection] = [
        .complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication, .noProtection,
    ]

    /// The class a config word names, if any.
    public init?(word: String) {
        guard let known = Self.all.first(where: { $0.word == word }) else { return nil }
        self = known
    }

    /// The word.
    public var description: String { word }

    /// Reads the `fileProtection` option: absent (or `null`) is `nil`, the system's default class.
    /// - Throws: ``/Container/OptionError`` for a value that is not one of the four words, with
    ///   a suggestion.
    static func option(from options: ServiceOptions) throws(OptionError) -> SQLiteFileProtection? {
        switch options["fileProtection"] {
        case nil, .null?: return nil
        case .string(let word)?:
            if let known = SQLiteFileProtection(word: word) { return known }
            let words = all.map(\.word)
            let hint = NameSuggestion.closest(to: word, among: words).map { "; did you mean '\($0)'?" } ?? ""
            throw .invalid(
                "fileProtection",
                "unknown file protection '\(NameRules.visible(word))'\(hint) (known: \(words.joined(separator: ", ")); "
                    + "completeUntilFirstUserAuthentication keeps the database readable by a launch in the background)")
        case let other?:
            throw .wrongType(
                "fileProtection", expected: "a string (\(all.map(\.word).joined(separator: ", ")))",
                found: other.typeName)
        }
    }
}
