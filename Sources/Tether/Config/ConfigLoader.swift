import Foundation

/// Reads a parsed config into the registry's tables and finds every error of DESIGN §3 in one
/// pass, each at its `file:line`: a mistake never hides another that does not depend on it.
struct ConfigLoader {
  let document: INIDocument
  let origin: String
  let baseDirectory: URL
  let expansion: PathExpansion
  let unknownKinds: StrategyRegistry.UnknownKinds

  /// The registry's tables, and every error found making them.
  struct Loaded {
    var mapping = KeyMapping()
    var instances: [String: StrategyInstance] = [:]
    var keyOptions: [String: StrategyOptions] = [:]
    /// The header line of each `[key.NAME]` section, by `NAME`.
    var keySectionLines: [String: Int] = [:]
    var foreign: [String: ForeignStrategy] = [:]
    var errors: [TetherError] = []
  }

  func load(_ strategies: [any PersistenceStrategy.Type]) -> Loaded {
    var pass = Pass(self, strategies)
    pass.readSections()
    // Every strategy is planned before any starts: a key's options are checked against its
    // strategy's kind and section whether or not the strategy then starts.
    pass.planStrategies()
    pass.startStrategies()
    pass.checkKeySections()
    return pass.finish()
  }
}

/// A strategy the config uses, before it starts.
private struct Plan {
  let name: String
  let type: any PersistenceStrategy.Type
  let options: StrategyOptions
  /// Where a failure to start is reported: its section, or the `[keys]` rule naming it.
  let location: String
  let allowsAbsolutePaths: Bool
}

/// One load: the document indexed once (asking it per section walked every line for each), and
/// what has been found so far.
private struct Pass {
  let loader: ConfigLoader
  let origin: String
  let kinds: [String: any PersistenceStrategy.Type]
  /// The entries, each value cut before a comment it seems to end in (reported as such): the
  /// rest of the config is checked for what was meant, so `throttle = 1s  # a second` is one
  /// error, and a misspelt option on such a line is still found.
  let entries: [INIDocument.Entry]
  let trailingComments: [TetherError]
  let sections: [String: [INIDocument.Entry]]
  let sectionLines: [String: Int]
  var loaded = ConfigLoader.Loaded()
  var errors: [TetherError]
  var strategySections: [String] = []
  var keySections: [String] = []
  var plans: [String: Plan] = [:]
  /// The planned strategies in the order they start: sections first, then kinds `[keys]` names.
  var order: [String] = []

  init(_ loader: ConfigLoader, _ strategies: [any PersistenceStrategy.Type]) {
    self.loader = loader
    origin = loader.origin
    errors = loader.document.problems.map(\.error)
    kinds = Self.kinds(strategies, errors: &errors)
    (entries, trailingComments) = ConfigLoader.cuttingTrailingComments(
      loader.document.entries, in: loader.document, origin: loader.origin)
    sections = Dictionary(grouping: entries, by: \.section)
    sectionLines = loader.document.sectionLines
  }

  func options(_ section: String) -> StrategyOptions {
    StrategyOptions(
      entries: (sections[section] ?? []).map { ($0.name, $0.value, $0.line) },
      origin: origin, baseDirectory: loader.baseDirectory, expansion: loader.expansion)
  }

  func location(of section: String) -> String {
    "\(origin):\(sectionLines[section] ?? 1)"
  }

  /// Entries outside any section, the `[keys]` rules, and the sections by what they are.
  mutating func readSections() {
    for entry in sections[""] ?? [] {
      errors.append(
        .invalidConfiguration(
          message: "\"\(entry.name)\" is outside any section; put it under [keys], "
            + "[strategy.NAME] or [key.NAME]", location: "\(origin):\(entry.line)"))
    }
    for section in loader.document.sections where !section.isEmpty {
      if section == "keys" {
        for entry in sections[section] ?? [] {
          do {
            try loaded.mapping.add(
              pattern: entry.name, strategy: entry.value, line: entry.line, origin: origin)
          } catch {
            errors.append(error)
          }
        }
      } else if let name = section.dropping(prefix: "strategy."), !name.isEmpty {
        strategySections.append(name)
      } else if let name = section.dropping(prefix: "key."), !name.isEmpty {
        keySections.append(name)
      } else {
        errors.append(
          .invalidConfiguration(
            message:
              "unknown section [\(section)]; expected [keys], [strategy.NAME] or [key.NAME]",
            location: location(of: section)))
      }
    }
  }

  /// A plan for each `[strategy.NAME]` section and each kind `[keys]` names without one; a
  /// kind this program does not have is an error, or a record when tolerated.
  mutating func planStrategies() {
    for name in strategySections {
      let section = "strategy.\(name)"
      let sectionOptions = options(section)
      let named = sectionOptions.peek("kind")
      let kind = named ?? name
      let kindLocation = named == nil ? location(of: section) : sectionOptions.location(of: "kind")
      if let type = kinds[kind] {
        plan(name, type, sectionOptions, at: location(of: section))
      } else if loader.unknownKinds == .tolerated {
        let line = sectionOptions.line(of: "kind") ?? sectionLines[section] ?? 1
        loaded.foreign[name] = ForeignStrategy(name: name, kind: kind, line: line, section: section)
      } else {
        errors.append(
          .invalidConfiguration(
            message: "unknown strategy kind \"\(kind)\"; registered: "
              + kinds.keys.sorted().joined(separator: ", ")
              + (named == nil ? " (a named instance needs kind = KIND)" : ""),
            location: kindLocation))
      }
    }
    let sectionNames = Set(strategySections)
    for rule in loaded.mapping.rules where plans[rule.strategy] == nil {
      // A section of an unknown kind was reported (or recorded) already.
      guard !sectionNames.contains(rule.strategy), loaded.foreign[rule.strategy] == nil else {
        continue
      }
      if let type = kinds[rule.strategy] {
        plan(
          rule.strategy, type, options("strategy.\(rule.strategy)"), at: "\(origin):\(rule.line)")
      } else if loader.unknownKinds == .tolerated {
        loaded.foreign[rule.strategy] = ForeignStrategy(
          name: rule.strategy, kind: rule.strategy, line: rule.line, section: nil)
      } else {
        let known = Set(kinds.keys).union(sectionNames.filter { plans[$0] != nil }).sorted()
        errors.append(
          .invalidConfiguration(
            message: "unknown strategy \"\(rule.strategy)\"; registered: "
              + known.joined(separator: ", "),
            location: "\(origin):\(rule.line)"))
      }
    }
  }

  private mutating func plan(
    _ name: String, _ type: any PersistenceStrategy.Type, _ options: StrategyOptions,
    at location: String
  ) {
    options.markRead("kind", "allow-absolute-paths")
    var allows = false
    do {
      allows = try options.bool("allow-absolute-paths") ?? false
    } catch {
      errors.append(
        Self.tetherError(error, location: options.location(of: "allow-absolute-paths")))
    }
    plans[name] = Plan(
      name: name, type: type, options: options, location: location, allowsAbsolutePaths: allows)
    order.append(name)
  }

  /// Starts each planned strategy; one that fails is reported, and the rest start regardless.
  mutating func startStrategies() {
    for name in order {
      guard let plan = plans[name] else { continue }
      loaded.instances[name] = start(plan)
    }
  }

  private mutating func start(_ plan: Plan) -> StrategyInstance? {
    let strategy: any PersistenceStrategy
    do {
      strategy = try plan.type.init(options: plan.options)
    } catch {
      // The options past the one that failed were never read: not reported as unknown.
      errors.append(
        Self.tetherError(
          error, message: "strategy \"\(plan.name)\" (kind \(plan.type.kind)) failed to start",
          location: plan.location))
      return nil
    }
    for unknown in plan.options.unread {
      errors.append(ConfigLoader.unknownOption(unknown, in: "strategy.\(plan.name)", plan.options))
    }
    return StrategyInstance(
      name: plan.name, kind: plan.type.kind, strategy: strategy, options: plan.options,
      allowsAbsolutePaths: plan.allowsAbsolutePaths)
  }

  /// Each `[key.NAME]` section: one key's, matched by `[keys]`, its `path` inside its
  /// strategy's directory, its options ones the strategy's kind reads.
  mutating func checkKeySections() {
    for name in keySections {
      let section = "key.\(name)"
      loaded.keySectionLines[name] = sectionLines[section]
      // Options belong to one key: a pattern's section would be accepted and never applied.
      guard !name.contains("*") else {
        errors.append(
          .invalidConfiguration(
            message: "[\(section)] names a pattern; a key section gives the options of one key",
            location: location(of: section)))
        continue
      }
      guard let rule = loaded.mapping.rule(for: name) else {
        errors.append(
          .invalidConfiguration(
            message:
              "[\(section)] matches no entry in [keys]; map \"\(name)\" to a strategy there",
            location: location(of: section)))
        continue
      }
      let options = options(section)
      loaded.keyOptions[name] = options
      // An unknown strategy is reported at its rule; a foreign one is not ours to check.
      guard let plan = plans[rule.strategy] else { continue }
      if let error = Self.pathProblem(options, of: name, in: plan) { errors.append(error) }
      if let known = plan.type.keyOptionNames {
        for unknown in options.names where !known.contains(unknown) {
          errors.append(ConfigLoader.unknownOption(unknown, in: section, options))
        }
      }
    }
  }

  /// The tables and every error found.
  func finish() -> ConfigLoader.Loaded {
    var loaded = loaded
    loaded.errors = trailingComments + errors
    return loaded
  }

  /// Each registered strategy by kind; two strategies of one kind are a program's mistake,
  /// reported, and the first kept.
  private static func kinds(
    _ strategies: [any PersistenceStrategy.Type], errors: inout [TetherError]
  ) -> [String: any PersistenceStrategy.Type] {
    var kinds: [String: any PersistenceStrategy.Type] = [:]
    for strategy in strategies {
      if let other = kinds[strategy.kind] {
        if other != strategy {
          errors.append(
            .invalidConfiguration(
              message: "strategies \(other) and \(strategy) both have kind \"\(strategy.kind)\"",
              location: "<strategies>"))
        }
        continue
      }
      kinds[strategy.kind] = strategy
    }
    return kinds
  }

  private static func pathProblem(
    _ options: StrategyOptions, of name: String, in plan: Plan
  ) -> TetherError? {
    guard let path = options.peek("path"), !plan.allowsAbsolutePaths else { return nil }
    let escapes =
      path.hasPrefix("/") || path.hasPrefix("~") || path.hasPrefix("$")
      || path.split(separator: "/").contains("..")
    guard escapes else { return nil }
    return .invalidConfiguration(
      message: "path \"\(path)\" of key \"\(name)\" escapes the directory of strategy "
        + "\"\(plan.name)\"; use a relative path inside it, or set "
        + "allow-absolute-paths = true in [strategy.\(plan.name)]",
      location: options.location(of: "path"))
  }

  /// `error` as a `TetherError`: itself if it is one, else `message: error` at `location`.
  private static func tetherError(
    _ error: any Error, message: String? = nil, location: String
  ) -> TetherError {
    if let error = error as? TetherError { return error }
    return .invalidConfiguration(
      message: message.map { "\($0): \(error)" } ?? "\(error)", location: location)
  }
}

extension String {
  fileprivate func dropping(prefix: String) -> String? {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
  }
}

extension ConfigLoader {
  /// `unknown option NAME in [SECTION]`, where it is written.
  static func unknownOption(
    _ name: String, in section: String, _ options: StrategyOptions
  ) -> TetherError {
    .invalidConfiguration(
      message: "unknown option \(name) in [\(section)]", location: options.location(of: name))
  }

  /// `entries` with each value that looks as if it ends in a comment cut before it, and an
  /// error for each: the grammar has whole-line comments only, so
  /// `directory = data  # relative to the config` would name a folder
  /// `data  # relative to the config`. A quoted value is taken as written.
  static func cuttingTrailingComments(
    _ entries: [INIDocument.Entry], in document: INIDocument, origin: String
  ) -> (entries: [INIDocument.Entry], errors: [TetherError]) {
    var errors: [TetherError] = []
    let cut = entries.map { entry -> INIDocument.Entry in
      let bytes = Array(entry.value.utf8)
      let comment = bytes.indices.dropLast().first { index in
        [UInt8(ascii: " "), UInt8(ascii: "\t")].contains(bytes[index])
          && [UInt8(ascii: "#"), UInt8(ascii: ";")].contains(bytes[index + 1])
      }
      guard let comment, !document.isQuoted(entry) else { return entry }
      errors.append(
        .invalidConfiguration(
          message: "the value of \"\(entry.name)\" would be \(String(reflecting: entry.value)), "
            + "comment included: comments take whole lines; put the comment on a line of its "
            + "own, or quote the value to keep the text",
          location: "\(origin):\(entry.line)"))
      // Cut at an ASCII space, so on a character boundary.
      var kept = String(decoding: bytes[..<comment], as: UTF8.self)
      while kept.last == " " || kept.last == "\t" { kept.removeLast() }
      return INIDocument.Entry(
        section: entry.section, name: entry.name, value: kept, line: entry.line)
    }
    return (cut, errors)
  }
}
