import Container
import Foundation

/// Where config runs keep their files: the folder a config's `$data` path root names.
///
/// `Configs/app.json` keeps its SQLite database at `$data/app.sqlite` and counts the launches
/// in it. By default the folder is outside the working tree, so running the demo leaves the
/// repository clean; `--data-dir PATH` chooses another one.
public enum DemoDataFolder {
    /// `container-demo` in the system's temporary folder (`$TMPDIR`, or `/tmp`): kept between
    /// runs, so the launch counter goes on until the system clears its temporary files.
    public static var defaultPath: String {
        URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("container-demo", isDirectory: true).standardizedFileURL.path
    }

    /// The path roots a config run loads its config with: `data` is the folder.
    static func pathRoots(_ folder: String) -> [String: String] { ["data": folder] }

    /// The absolute folder for `path`: ``defaultPath`` when `nil`; a relative path starts at the
    /// current directory.
    static func absolutePath(_ path: String?) -> String {
        URL(fileURLWithPath: path ?? defaultPath, isDirectory: true).standardizedFileURL.path
    }

    /// Creates `folder` with its parents when missing; the problem to report when it cannot.
    static func create(_ folder: String) -> ConfigProblem? {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return nil
        } catch {
            var isFolder: ObjCBool = false
            let reason =
                FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && !isFolder.boolValue
                ? "it is a file" : "check that its parent folders are writable"
            return ConfigProblem(
                description:
                    "container-demo: cannot use '\(NameRules.escapingControlCharacters(folder))' as the data folder: \(reason); pass --data-dir "
                    + "with a writable folder")
        }
    }
}
