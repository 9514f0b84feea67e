/// The options of one `[strategy.NAME]` or `[key.NAME]` section, with where each was written.
///
/// ```swift
/// init(options: StrategyOptions) throws {
///   throttle = try options.duration("throttle") ?? .seconds(1)
/// }
/// ```
public struct StrategyOptions: Sendable {
  private struct Option: Sendable {
    let name: String
    let value: String
    let line: Int?
  }

  private let options: [Option]

  /// The config file these options come from, or the origin given to a `.string` configuration.
  public let origin: String

  /// Options given in code, in name order; their location is `origin`.
  public init(_ values: [String: String] = [:], origin: String = "<options>") {
    self.options = values.sorted { $0.key < $1.key }.map {
      Option(name: $0.key, value: $0.value, line: nil)
    }
    self.origin = origin
  }

  /// Options read from a file: `(name, value, line)` in file order.
  package init(entries: [(name: String, value: String, line: Int)], origin: String) {
    self.options = entries.map { Option(name: $0.name, value: $0.value, line: $0.line) }
    self.origin = origin
  }

  /// The names of the options present, in file order.
  public var names: [String] { options.map(\.name) }

  /// The value of option `name`, unquoted, or `nil` when it is absent.
  public subscript(_ name: String) -> String? {
    options.first { $0.name == name }?.value
  }

  /// Where option `name` was written, as `file:line` (just the origin when unknown).
  public func location(of name: String) -> String {
    guard let line = options.first(where: { $0.name == name })?.line else { return origin }
    return "\(origin):\(line)"
  }

  /// An error about option `name`, located where it was written.
  public func invalid(_ name: String, _ message: String) -> TetherError {
    .invalidOption(name: name, message: message, location: location(of: name))
  }

  /// Option `name` as a boolean: `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`.
  public func bool(_ name: String) throws -> Bool? {
    guard let value = self[name] else { return nil }
    switch value.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: throw invalid(name, "expected true or false, found \"\(value)\"")
    }
  }

  /// Option `name` as a decimal integer.
  public func integer(_ name: String) throws -> Int? {
    guard let value = self[name] else { return nil }
    guard let integer = Int(value) else {
      throw invalid(name, "expected a whole number, found \"\(value)\"")
    }
    return integer
  }

  /// Option `name` as a duration: a whole number followed by `ms`, `s` or `m` (`250ms`, `1s`).
  public func duration(_ name: String) throws -> Duration? {
    guard let value = self[name] else { return nil }
    let digits = value.prefix { $0.isASCII && $0.isNumber }
    let unit = value.dropFirst(digits.count)
    guard let amount = Int(digits), !digits.isEmpty else {
      throw invalid(name, "expected a duration such as 250ms, 1s or 2m, found \"\(value)\"")
    }
    switch unit {
    case "ms": return .milliseconds(amount)
    case "s": return .seconds(amount)
    case "m": return .seconds(amount * 60)
    default:
      throw invalid(name, "expected a duration such as 250ms, 1s or 2m, found \"\(value)\"")
    }
  }
}
