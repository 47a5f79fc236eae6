import Foundation

/// Every file and folder under `folder` (paths relative to it), each with its size and
/// modification date: two listings are equal when nothing under the folder was added, removed
/// or written.
public func folderListing(_ folder: String) throws -> [String: String] {
    let manager = FileManager.default
    var result: [String: String] = [:]
    for name in try manager.subpathsOfDirectory(atPath: folder) {
        let attributes = try manager.attributesOfItem(atPath: folder + "/" + name)
        result[name] = "\(attributes[.size] ?? "-") \(attributes[.modificationDate] ?? "-")"
    }
    return result
}
