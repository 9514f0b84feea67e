import Foundation
package import Tether
import TetherLocking
import TetherWatcher

extension DefaultsStrategy: StoredTextStrategy {
  /// The defaults file, the section and the key.
  package func storageLocation(of name: String, options: StrategyOptions) throws -> String {
    let (section, key) = DefaultsName.split(name)
    return "\(store.file.path) \(section.isEmpty ? "" : "[\(section)] ")\(key)"
  }

  /// The key's literal in the user file, else in the registration file (noted as such).
  package func storedText(of name: String, options: StrategyOptions) throws -> StoredText {
    try KeyName.validate(name)
    if let entry = try DefaultsFile.entry(name, in: store.path) {
      return Self.storedText(entry.value)
    }
    if let registration = store.registration,
      let entry = try DefaultsFile.entry(name, in: registration.path)
    {
      return Self.storedText(
        entry.value, note: "registered default, from \(registration.path)")
    }
    return .absent("no value (not set in \(store.file.path))")
  }

  /// The user file's line, else the registration file's.
  package func valueSource(of name: String, options: StrategyOptions) throws -> String? {
    try KeyName.validate(name)
    if let entry = try DefaultsFile.entry(name, in: store.path) {
      return "\(store.file.path):\(entry.line)"
    }
    if let registration = store.registration,
      let entry = try DefaultsFile.entry(name, in: registration.path)
    {
      return "registration \(registration.path):\(entry.line)"
    }
    return nil
  }

  /// A literal: export shows `42` and `true` as JSON scalars, which are literals as they are,
  /// and text as a JSON string, which is the literal's text.
  package func storedText(fromJSON json: Any) throws -> String {
    try json as? String ?? StoredText.json(json)
  }

  /// The literal as the file writes it: `name =` is the empty text, said in a note, which
  /// `tether set` takes back as the same.
  private static func storedText(_ value: INIValue, note: String? = nil) -> StoredText {
    switch value {
    case .text(let text): return .text(INIString.encode(text), note: note)
    case .empty:
      return .text(
        "",
        note: ["empty: nil for an Optional key, the empty text for a String", note]
          .compactMap { $0 }.joined(separator: "; "))
    }
  }

  /// Sets the key's line once `text` parses as an INI literal, through the file's locked
  /// read-merge-replace, as a holder's save does.
  package func setStoredText(_ text: String, of name: String, options: StrategyOptions) throws {
    // The name becomes a line of the file: checked before anything is read or written.
    try KeyName.validate(name)
    let literal = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let decoded: String
    do {
      decoded = try INIString.decode(literal, location: "<value>")
    } catch {
      throw StoredTextError(
        "\(error.description.dropFirst("<value>: ".count)); \(store.file.path) was not changed")
    }
    // An empty literal is written as the file holds one, `name =` (an Optional key's nil);
    // `""` is the empty text.
    try DefaultsFile.set(
      name, literal: literal.isEmpty ? .empty : .text(decoded), in: store.path)
  }

  /// Removes the key's line from the user file as a holder's `reset()` does, through the
  /// file's own reset: under its lock, every other line kept; a missing file is success, and
  /// nothing is made for it.
  package func resetStoredValue(of name: String, options: StrategyOptions) async throws {
    // The name picks a line of the file: checked before anything is read or written.
    try KeyName.validate(name)
    try DefaultsFiles.current.file(for: store, throttle: throttle).reset(name) { _ in }
  }

  /// Each change of the key's line in the user file (a change of another line is not one).
  package func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription {
    try KeyName.validate(name)
    let path = store.path
    let last = UnfairMutex<INIValue?>(try DefaultsFile.entry(name, in: path)?.value)
    let watch = FileWatcher.shared.watch(path) { _ in
      do {
        let literal = try DefaultsFile.entry(name, in: path)?.value
        let changed = last.withLock { last in
          defer { last = literal }
          return last != literal
        }
        guard changed else { return }
        onChange(
          .success(literal.map { Self.storedText($0) } ?? .absent("no value (line removed)")))
      } catch {
        onChange(.failure(error))
      }
    }
    return SharedSubscription { watch.cancel() }
  }
}
