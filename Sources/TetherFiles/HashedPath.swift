/// A path with its hash computed once, as a key of the watcher's tables.
///
/// A file key's path is looked up in several tables as it starts (its file, its folder, the
/// folder's files): the string is hashed once, and two paths' strings are compared only when
/// their hashes match (paths in one folder share long prefixes).
///
/// ```swift
/// let key = HashedPath("/home/ada/.config/app/state.json")
/// table[key] = entry
/// ```
package struct HashedPath: Hashable, Sendable, CustomStringConvertible {
  /// The path.
  package let string: String
  /// The string's hash, for types that hold the path too (a key's id).
  package let stringHash: Int

  package init(_ string: String) {
    self.string = string
    self.stringHash = string.hashValue
  }

  package var description: String { string }

  package static func == (lhs: HashedPath, rhs: HashedPath) -> Bool {
    lhs.stringHash == rhs.stringHash && lhs.string == rhs.string
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(stringHash)
  }
}
