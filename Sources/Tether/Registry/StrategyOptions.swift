public import Foundation
import TetherLocking

/// The options of one `[strategy.NAME]` or `[key.NAME]` section, with where each was written.
///
/// ```swift
/// init(options: StrategyOptions) throws {
///   directory = try options.path("directory") ?? defaultDirectory
///   throttle = try options.duration("throttle") ?? .seconds(1)
/// }
/// ```
///
/// Tether notes which options a strategy reads: one it never reads is reported as
/// `unknown option NAME` at its `file:line`, so a misspelt option is never silently ignored.
public struct StrategyOptions: Sendable {
  private struct Option: Sendable {
    let name: String
    let value: String
    let line: Int?
  }

  private let options: [Option]
  private let reads = ReadLog()
  private let baseDirectory: URL
  private let expansion: PathExpansion

  /// The config file these options come from, or the origin given to a `.string` configuration.
  public let origin: String

  /// Options given in code, in name order; relative paths resolve against the current folder.
  public init(_ values: [String: String] = [:], origin: String = "<options>") {
    self.options = values.sorted { $0.key < $1.key }.map {
      Option(name: $0.key, value: $0.value, line: nil)
    }
    self.origin = origin
    self.baseDirectory = URL(filePath: FileManager.default.currentDirectoryPath)
    self.expansion = .process
  }

  /// Options read from a file: `(name, value, line)` in file order.
  package init(
    entries: [(name: String, value: String, line: Int)], origin: String,
    baseDirectory: URL = URL(filePath: FileManager.default.currentDirectoryPath),
    expansion: PathExpansion = .process
  ) {
    self.options = entries.map { Option(name: $0.name, value: $0.value, line: $0.line) }
    self.origin = origin
    self.baseDirectory = baseDirectory
    self.expansion = expansion
  }

  /// The names of the options present, in file order.
  public var names: [String] { options.map(\.name) }

  /// The value of option `name`, unquoted, or `nil` when it is absent.
  public subscript(_ name: String) -> String? {
    reads.note(name)
    return options.first { $0.name == name }?.value
  }

  /// Where option `name` was written, as `file:line` (just the origin when unknown).
  public func location(of name: String) -> String {
    guard let line = options.first(where: { $0.name == name })?.line else { return origin }
    return "\(origin):\(line)"
  }

  /// The line option `name` was written at, when it comes from a file.
  package func line(of name: String) -> Int? {
    options.first { $0.name == name }?.line
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
    let amount = digits.isEmpty ? nil : Int(digits)
    switch (amount, value.dropFirst(digits.count)) {
    case (let amount?, "ms"): return .milliseconds(amount)
    case (let amount?, "s"): return .seconds(amount)
    case (let amount?, "m") where amount <= Int.max / 60: return .seconds(amount * 60)
    default:
      throw invalid(name, "expected a duration such as 250ms, 1s or 2m, found \"\(value)\"")
    }
  }

  /// Option `name` as a path: `~`, `$HOME` and `$XDG_*_HOME` (with the XDG fallbacks when unset)
  /// are expanded, and a relative path is relative to the config file's folder.
  public func path(_ name: String) throws -> URL? {
    try path(name, relativeTo: baseDirectory)
  }

  /// The value of option `name` without counting it as read by the strategy.
  package func peek(_ name: String) -> String? {
    options.first { $0.name == name }?.value
  }

  /// Option `name` as a path relative to `base` (a strategy's directory, for a key's `path`);
  /// `~`, `$HOME` and `$XDG_*_HOME` are expanded as in ``path(_:)``.
  public func path(_ name: String, relativeTo base: URL) throws -> URL? {
    guard let value = self[name] else { return nil }
    do {
      return try expansion.expand(value, relativeTo: base)
    } catch {
      throw invalid(name, "\(error.message) in \"\(value)\"")
    }
  }

  /// The options nobody has read, in file order: misspelt or unsupported.
  package var unread: [String] {
    let read = reads.names
    return names.filter { !read.contains($0) }
  }

  /// Marks `names` as read by the registry itself (`kind`, `allow-absolute-paths`).
  package func markRead(_ names: String...) {
    for name in names { reads.note(name) }
  }
}

/// The option names read so far, shared by every copy of one `StrategyOptions`.
private final class ReadLog: Sendable {
  private let read = UnfairMutex<Set<String>>([])
  func note(_ name: String) { _ = read.withLock { $0.insert(name) } }
  var names: Set<String> { read.withLock { $0 } }
}
