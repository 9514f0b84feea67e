/// What an entry holds after its `=`, as a defaults file tells values apart: a text, or nothing
/// at all.
///
/// `name =` and `name = ""` both read as the empty text, but ``INIString/encode(_:)`` writes an
/// empty text only as `""`: no text, quoted or bare, is written as `name =`, which is therefore
/// free to mean "no value" (a defaults key's `nil`).
package enum INIValue: Hashable, Sendable {
  /// A text, written bare or quoted by ``INIString``.
  case text(String)
  /// Nothing after the `=`.
  case empty

  /// Whether the two are written the same: texts compared scalar by scalar, since `==` equates
  /// canonically equivalent texts, which a file tells apart.
  func isWritten(as other: INIValue) -> Bool {
    switch (self, other) {
    case (.empty, .empty): return true
    case (.text(let text), .text(let otherText)):
      return text.unicodeScalars.elementsEqual(otherText.unicodeScalars)
    case (.empty, .text), (.text, .empty): return false
    }
  }
}
