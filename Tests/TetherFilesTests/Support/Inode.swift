import Foundation
import Testing

/// The inode of the file or folder at `url`.
func inode(_ url: URL) throws -> UInt64 {
  let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
  return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
}
