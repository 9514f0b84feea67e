import Foundation
import Tether
import TetherFiles

/// Reading: a defaults file parsed once, leniently, with its entries by full key name.
extension DefaultsFile {
  static func read(_ path: String) -> Result<Parsed, TetherError> {
    parse(FileContent.read(path), origin: path)
  }

  static func parse(_ content: FileContent, origin: String) -> Result<Parsed, TetherError> {
    switch content {
    case .missing: return .success(Parsed(INIDocument()))
    case .unreadable(let error):
      return .failure(.invalidConfiguration(message: "cannot read: \(error)", location: origin))
    case .data(let data):
      // Leniently: a line a person broke costs its own key, not the file's other keys.
      return Result { () throws(TetherError) in
        Parsed(try INIDocument(lenientlyParsing: data, origin: origin))
      }
    }
  }

  /// A key's line: its value (`name =` is `.empty`, an Optional's `nil`) and its number.
  struct Stored: Equatable, Sendable {
    let value: INIValue
    let line: Int
  }

  /// A parsed file with its entries by full key name (`ui.theme`), so each lookup is one hash.
  struct Parsed: Sendable {
    let document: INIDocument
    let entries: [String: Stored]
    /// Why the line of a key does not parse, by full key name.
    let problems: [String: TetherError]
    /// The first section header that does not parse: any key of a section may be below it.
    let lostSection: TetherError?

    init(_ document: INIDocument) {
      self.document = document
      var entries: [String: Stored] = [:]
      for entry in document.entries {
        entries[entry.section.isEmpty ? entry.name : entry.section + "." + entry.name] = Stored(
          value: document.value(of: entry), line: entry.line)
      }
      self.entries = entries
      var problems: [String: TetherError] = [:]
      var lostSection: TetherError?
      for problem in document.problems {
        if let section = problem.section, let name = problem.name {
          let key = section.isEmpty ? name : section + "." + name
          problems[key] = problems[key] ?? problem.error
        } else if problem.section == nil {
          lostSection = lostSection ?? problem.error
        } else {
          // No key to report it on (a line without "="): kept, ignored, and said here.
          DefaultsFile.logger.warning("\(problem.error.description); the line is ignored")
        }
      }
      self.problems = problems
      self.lostSection = lostSection
    }

    /// Why `name` has no value here although the file may mean to give it one: an invalid
    /// value of `name`, like one that does not decode.
    func problem(for name: String) -> TetherError? {
      var problem = problems[name]
      if problem == nil, entries[name] == nil, name.contains(".") { problem = lostSection }
      guard case .invalidConfiguration(let message, let location)? = problem else { return problem }
      return .invalidValue(key: name, message: message, location: location)
    }
  }
}
