/// A path with its hash computed once, as a key of the watcher's tables.
///
/// A file key's path is looked up in several tables as it starts (its file, its folder, the
/// folder's files), and a table compares the key of every slot a probe passes: hashing the
/// string at each lookup and comparing long shared prefixes at each slot were a tenth of
/// starting 10,000 file keys (measured with callgrind). Here slots of other paths differ by
/// hash, and the strings are compared only when the hashes match.
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

  /// The string's hash, already a seeded SipHash of it, mixed with the table's seed: hashing it
  /// again through a `Hasher` at each lookup, insert and table growth was a twentieth of
  /// starting a file key (measured with callgrind).
  package func _rawHashValue(seed: Int) -> Int {
    stringHash ^ seed
  }
}
