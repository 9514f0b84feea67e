package import Foundation
import Logging

/// A loaded config: which strategy stores each key, the strategy instances, and each key's own
/// options. Every startup error of DESIGN §3 is found here, located at `file:line`.
package final class StrategyRegistry: Sendable {
  package let origin: String
  package let mapping: KeyMapping
  package let instances: [String: StrategyInstance]
  package let keyOptions: [String: StrategyOptions]
  /// The keys the app declared, in the order given.
  package let declarations: [KeyDeclaration]
  private let resolved = LockedState<[ResolutionSlot: any Sendable]>([:])

  private struct ResolutionSlot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  package convenience init(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    declarations: [KeyDeclaration] = []
  ) throws {
    try self.init(
      document: configuration.document(), origin: configuration.origin,
      baseDirectory: configuration.baseDirectory, strategies: strategies, expansion: .process,
      declarations: declarations)
  }

  package init(
    document: INIDocument, origin: String, baseDirectory: URL,
    strategies: [any PersistenceStrategy.Type], expansion: PathExpansion,
    declarations: [KeyDeclaration] = [], diagnostics: Diagnostics = Diagnostics()
  ) throws {
    let report = diagnostics
    let kinds = try Self.kinds(strategies)
    // Indexed once: asking the document per section walked every line for each of them.
    let all = document.entries
    let entries = Dictionary(grouping: all, by: \.section)
    let sectionLines = document.sectionLines
    func options(_ section: String) -> StrategyOptions {
      StrategyOptions(
        entries: (entries[section] ?? []).map { ($0.name, $0.value, $0.line) },
        origin: origin, baseDirectory: baseDirectory, expansion: expansion)
    }
    func sectionLocation(_ section: String) -> String {
      "\(origin):\(sectionLines[section] ?? 1)"
    }

    Self.warnAboutTrailingComments(all, in: document, origin: origin)
    var mapping = KeyMapping()
    var strategySections: [String] = []
    var keySections: [String] = []
    for entry in entries[""] ?? [] {
      try report.record(
        .invalidConfiguration(
          message: "\"\(entry.name)\" is outside any section; put it under [keys], "
            + "[strategy.NAME] or [key.NAME]", location: "\(origin):\(entry.line)"))
    }
    for section in document.sections where !section.isEmpty {
      if section == "keys" {
        for entry in entries[section] ?? [] {
          try report.attempt {
            try mapping.add(
              pattern: entry.name, strategy: entry.value, line: entry.line, origin: origin)
          }
        }
      } else if let name = section.dropping(prefix: "strategy."), !name.isEmpty {
        strategySections.append(name)
      } else if let name = section.dropping(prefix: "key."), !name.isEmpty {
        keySections.append(name)
      } else {
        try report.record(
          .invalidConfiguration(
            message:
              "unknown section [\(section)]; expected [keys], [strategy.NAME] or [key.NAME]",
            location: sectionLocation(section)))
      }
    }

    var instances: [String: StrategyInstance] = [:]
    // Strategies that failed are reported once, not again for every key that maps to them.
    var failed: Set<String> = []
    for name in strategySections {
      let sectionOptions = options("strategy.\(name)")
      let kind = sectionOptions["kind"] ?? name
      guard let type = kinds[kind] else {
        let location =
          sectionOptions["kind"] == nil
          ? sectionLocation("strategy.\(name)") : sectionOptions.location(of: "kind")
        failed.insert(name)
        try report.record(
          .invalidConfiguration(
            message: "unknown strategy kind \"\(kind)\"; registered: "
              + kinds.keys.sorted().joined(separator: ", ")
              + (sectionOptions["kind"] == nil ? " (a named instance needs kind = KIND)" : ""),
            location: location))
        continue
      }
      try report.attempt {
        instances[name] = try Self.instantiate(
          type, name: name, options: sectionOptions, location: sectionLocation("strategy.\(name)"),
          report: report)
      } failed: {
        failed.insert(name)
      }
    }
    for rule in mapping.rules where instances[rule.strategy] == nil {
      guard !failed.contains(rule.strategy) else { continue }
      guard let type = kinds[rule.strategy] else {
        let known = Set(kinds.keys).union(instances.keys).sorted()
        try report.record(
          .invalidConfiguration(
            message: "unknown strategy \"\(rule.strategy)\"; registered: "
              + known.joined(separator: ", "),
            location: "\(origin):\(rule.line)"))
        continue
      }
      try report.attempt {
        instances[rule.strategy] = try Self.instantiate(
          type, name: rule.strategy, options: options("strategy.\(rule.strategy)"),
          location: "\(origin):\(rule.line)", report: report)
      } failed: {
        failed.insert(rule.strategy)
      }
    }

    var keyOptions: [String: StrategyOptions] = [:]
    for name in keySections {
      let section = "key.\(name)"
      // Options belong to one key: a pattern's section would be accepted and never applied.
      guard !name.contains("*") else {
        try report.record(
          .invalidConfiguration(
            message: "[\(section)] names a pattern; a key section gives the options of one key",
            location: sectionLocation(section)))
        continue
      }
      guard let rule = mapping.rule(for: name) else {
        try report.record(
          .invalidConfiguration(
            message:
              "[\(section)] matches no entry in [keys]; map \"\(name)\" to a strategy there",
            location: sectionLocation(section)))
        continue
      }
      guard let instance = instances[rule.strategy] else { continue }
      let options = options(section)
      try report.attempt { try Self.checkPath(options, of: name, in: instance) }
      if let known = type(of: instance.strategy).keyOptionNames {
        for unknown in options.names where !known.contains(unknown) {
          try report.record(Self.unknownOption(unknown, in: section, options))
        }
      }
      keyOptions[name] = options
    }

    self.origin = origin
    self.mapping = mapping
    self.instances = instances
    self.keyOptions = keyOptions
    self.declarations = declarations
  }

  /// Every error in `configuration`, in file order, for `tether check`: lines that do not parse
  /// and what the lines that do get wrong. Only bytes that are not UTF-8 stop it at the first.
  package static func diagnose(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type]
  ) -> [TetherError] {
    // A line that does not parse is one error among the others: the lines past it are read
    // and checked too.
    let document: INIDocument
    do {
      document = try configuration.lenientDocument()
    } catch let error as TetherError {
      return [error]
    } catch {
      return [.invalidConfiguration(message: "\(error)", location: configuration.origin)]
    }
    let syntax = document.problems.map(\.error)
    let diagnostics = Diagnostics(collecting: true)
    do {
      _ = try StrategyRegistry(
        document: document, origin: configuration.origin,
        baseDirectory: configuration.baseDirectory, strategies: strategies, expansion: .process,
        diagnostics: diagnostics)
    } catch let error as TetherError {
      return inFileOrder(syntax + diagnostics.errors + [error], origin: configuration.origin)
    } catch {
      return syntax + diagnostics.errors + [
        .invalidConfiguration(message: "\(error)", location: configuration.origin)
      ]
    }
    return inFileOrder(syntax + diagnostics.errors, origin: configuration.origin)
  }

  private static func inFileOrder(_ errors: [TetherError], origin: String) -> [TetherError] {
    func line(_ error: TetherError) -> Int {
      let rest = error.description.dropFirst(origin.count + 1)
      return Int(rest.prefix { $0.isNumber }) ?? 0
    }
    return errors.enumerated().sorted {
      (line($0.element), $0.offset) < (line($1.element), $1.offset)
    }
    .map(\.element)
  }

  /// The key that stores `name` as `Value`, made once per name and type and then reused.
  package func key<Value: Sendable>(
    named name: String, as type: Value.Type
  ) -> Result<any SharedKey<Value>, TetherError> {
    let slot = ResolutionSlot(name: name, type: ObjectIdentifier(type))
    if let cached = resolved.withLock({ $0[slot] }) as? Result<any SharedKey<Value>, TetherError> {
      return cached
    }
    let result = Result { () throws(TetherError) in try resolve(name, as: type) }
    let published = resolved.withLock { table -> Result<any SharedKey<Value>, TetherError> in
      if let raced = table[slot] as? Result<any SharedKey<Value>, TetherError> { return raced }
      table[slot] = result
      return result
    }
    if case .failure(let error) = result, published.isFailure {
      // `unsupportedType` has no location of its own: the log names the mapping's line.
      let mapped = mapping.rule(for: name).map { " (mapped at \(origin):\($0.line))" } ?? ""
      Logger.tether.error("cannot resolve key \"\(name)\"\(mapped): \(error)")
    }
    return published
  }

  /// The kind of the strategy `name` is mapped to.
  func strategyKind(of name: String) -> String? {
    mapping.rule(for: name).flatMap { instances[$0.strategy]?.kind }
  }

  private func resolve<Value: Sendable>(
    _ name: String, as type: Value.Type
  ) throws(TetherError) -> any SharedKey<Value> {
    // Checked before the mapping: a name no config line could map (a pattern would) is a
    // mistake in code, and every strategy may rely on getting valid names only.
    try KeyName.validate(name)
    guard let rule = mapping.rule(for: name), let instance = instances[rule.strategy] else {
      throw .unmappedKey(name, origin: origin)
    }
    let options = keyOptions[name] ?? StrategyOptions(entries: [], origin: origin)
    let key: any SharedKey<Value>
    do {
      key = try instance.strategy.key(named: name, as: type, options: options)
    } catch let error as TetherError {
      throw error
    } catch {
      throw .invalidConfiguration(
        message: "strategy \"\(instance.name)\" cannot store key \"\(name)\": \(error)",
        location: "\(origin):\(rule.line)")
    }
    if let unknown = options.unread.first {
      throw Self.unknownOption(unknown, in: "key.\(name)", options)
    }
    return key
  }

  private static func kinds(
    _ strategies: [any PersistenceStrategy.Type]
  ) throws -> [String: any PersistenceStrategy.Type] {
    var kinds: [String: any PersistenceStrategy.Type] = [:]
    for strategy in strategies {
      if let other = kinds[strategy.kind], other != strategy {
        throw TetherError.invalidConfiguration(
          message: "strategies \(other) and \(strategy) both have kind \"\(strategy.kind)\"",
          location: "<strategies>")
      }
      kinds[strategy.kind] = strategy
    }
    return kinds
  }

  private static func instantiate(
    _ type: any PersistenceStrategy.Type, name: String, options: StrategyOptions,
    location: String, report: Diagnostics
  ) throws -> StrategyInstance {
    options.markRead("kind", "allow-absolute-paths")
    let allowsAbsolutePaths = try options.bool("allow-absolute-paths") ?? false
    let strategy: any PersistenceStrategy
    do {
      strategy = try type.init(options: options)
    } catch let error as TetherError {
      throw error
    } catch {
      throw TetherError.invalidConfiguration(
        message: "strategy \"\(name)\" (kind \(type.kind)) failed to start: \(error)",
        location: location)
    }
    let unread = options.unread
    if let unknown = unread.first {
      // Each is reported (`tether check` lists them all); the first also fails the strategy.
      for other in unread.dropFirst() {
        try report.record(unknownOption(other, in: "strategy.\(name)", options))
      }
      throw unknownOption(unknown, in: "strategy.\(name)", options)
    }
    return StrategyInstance(
      name: name, kind: type.kind, strategy: strategy, options: options,
      allowsAbsolutePaths: allowsAbsolutePaths)
  }

  private static func checkPath(
    _ options: StrategyOptions, of name: String, in instance: StrategyInstance
  ) throws {
    let entries = options.names
    guard entries.contains("path"), !instance.allowsAbsolutePaths else { return }
    let path = options.peek("path") ?? ""
    let escapes =
      path.hasPrefix("/") || path.hasPrefix("~") || path.hasPrefix("$")
      || path.split(separator: "/").contains("..")
    if escapes {
      throw TetherError.invalidConfiguration(
        message: "path \"\(path)\" of key \"\(name)\" escapes the directory of strategy "
          + "\"\(instance.name)\"; use a relative path inside it, or set "
          + "allow-absolute-paths = true in [strategy.\(instance.name)]",
        location: options.location(of: "path"))
    }
  }

  private static func unknownOption(
    _ name: String, in section: String, _ options: StrategyOptions
  ) -> TetherError {
    .invalidConfiguration(
      message: "unknown option \(name) in [\(section)]", location: options.location(of: name))
  }
}

extension Result {
  fileprivate var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}

extension String {
  fileprivate func dropping(prefix: String) -> String? {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
  }
}

extension StrategyRegistry {
  /// Logs values that look as if they end in a comment: the grammar has whole-line comments
  /// only, so `directory = ~/facts  # mine` names a folder `facts  # mine`, which nothing else
  /// would point out.
  static func warnAboutTrailingComments(
    _ entries: [INIDocument.Entry], in document: INIDocument, origin: String
  ) {
    for entry in entries {
      let bytes = entry.value.utf8
      let commented = zip(bytes, bytes.dropFirst()).contains { space, mark in
        (space == UInt8(ascii: " ") || space == UInt8(ascii: "\t"))
          && (mark == UInt8(ascii: "#") || mark == UInt8(ascii: ";"))
      }
      guard commented, !document.isQuoted(entry) else { continue }
      let value = String(reflecting: entry.value)
      let message =
        "\(origin):\(entry.line): the value of \"\(entry.name)\" is \(value), comment included: "
        + "comments take whole lines (quote the value to keep the text)"
      Logger.tether.warning("\(message)")
    }
  }
}
