extension TetherError {
  /// `errors` as one error to throw: `nil` for none, a single error as itself, several as
  /// ``multiple(_:)`` (nested lists flattened into it).
  package static func collected(_ errors: [TetherError]) -> TetherError? {
    let flat = errors.flatMap { error -> [TetherError] in
      if case .multiple(let inner) = error { return inner }
      return [error]
    }
    switch flat.count {
    case 0: return nil
    case 1: return flat[0]
    default: return .multiple(flat)
    }
  }

  /// The errors one by one: a ``multiple(_:)``'s list, or this error alone.
  package var all: [TetherError] {
    if case .multiple(let errors) = self { return errors.flatMap(\.all) }
    return [self]
  }

  /// The file and line the error is located at, when its location is a `file:line`.
  package var fileLine: (file: String, line: Int)? {
    guard let location, let colon = location.lastIndex(of: ":"),
      let line = Int(location[location.index(after: colon)...])
    else { return nil }
    return (String(location[..<colon]), line)
  }

  private var location: String? {
    switch self {
    case .invalidConfiguration(_, let location), .invalidOption(_, _, let location),
      .invalidValue(_, _, let location), .conflict(_, let location),
      .foreignStrategy(_, _, let location):
      return location
    default:
      return nil
    }
  }

  /// `errors` in file order: those in the config `origin` by line first, then those in other
  /// files (key declarations in the app's sources), a file at a time in the order they first
  /// come, by line; errors without a line last. Errors of one line keep their order.
  package static func inFileOrder(_ errors: [TetherError], origin: String) -> [TetherError] {
    var files = [origin: 0]
    func place(_ error: TetherError) -> (file: Int, line: Int) {
      guard let (file, line) = error.fileLine else { return (Int.max, 0) }
      if let index = files[file] { return (index, line) }
      files[file] = files.count
      return (files.count - 1, line)
    }
    let placed = errors.map { (place($0), $0) }
    return placed.enumerated().sorted {
      ($0.element.0.file, $0.element.0.line, $0.offset)
        < ($1.element.0.file, $1.element.0.line, $1.offset)
    }
    .map(\.element.1)
  }
}
