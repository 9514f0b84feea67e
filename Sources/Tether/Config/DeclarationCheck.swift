extension StrategyRegistry {
  /// What the config gets wrong about the declared keys, and they about it: a name declared
  /// twice, a declared key the config does not map, a type its strategy cannot store, a
  /// per-key option its strategy does not read, and an exact `[keys]` name or `[key.NAME]`
  /// section that no declared key has. Empty without declarations: undeclared keys are
  /// checked at first use, as always.
  ///
  /// Each declared key is resolved as its type (and so kept, as its first use would keep it).
  func declarationErrors() -> [TetherError] {
    guard !declarations.isEmpty else { return [] }
    var errors: [TetherError] = []
    var first: [String: KeyDeclaration] = [:]
    for declaration in declarations {
      if let earlier = first[declaration.name] {
        let types =
          earlier.typeName == declaration.typeName
          ? "" : ", as \(earlier.typeName) there and as \(declaration.typeName) here"
        errors.append(
          .invalidConfiguration(
            message: "key \"\(declaration.name)\" is declared twice (first at "
              + "\(earlier.location)\(types)); declare each key once",
            location: declaration.location))
        continue
      }
      first[declaration.name] = declaration
      if let error = problem(of: declaration) { errors.append(error) }
    }
    return errors + undeclaredNames(declared: declarations.map(\.name))
  }

  private func problem(of declaration: KeyDeclaration) -> TetherError? {
    let name = declaration.name
    if let reason = KeyName.problem(with: name) {
      return .invalidConfiguration(
        message: "invalid key name \(KeyName.quoted(name)): \(reason)",
        location: declaration.location)
    }
    guard let rule = mapping.rule(for: name) else {
      return .invalidConfiguration(
        message: "key \"\(name)\" is declared, but \(origin) maps it to no strategy (no "
          + "[keys] entry or pattern matches it); add \"\(name) = <strategy>\" under [keys]",
        location: declaration.location)
    }
    // A strategy that is unknown or failed to start is reported at its own line already.
    guard instances[rule.strategy] != nil || foreign[rule.strategy] != nil else { return nil }
    guard let error = declaration.typed.resolutionError(in: self) else { return nil }
    guard case .unsupportedType = error, let instance = instances[rule.strategy] else {
      // Located in the config already: an unknown per-key option, a strategy's own refusal.
      return error
    }
    let strategy =
      instance.name == instance.kind
      ? "strategy \"\(instance.name)\"" : "strategy \"\(instance.name)\" (kind \(instance.kind))"
    return .invalidConfiguration(
      message: "key \"\(name)\" is declared as \(declaration.typeName), which \(strategy), "
        + "mapped at \(origin):\(rule.line), cannot store; map it to a strategy that can",
      location: declaration.location)
  }

  /// The exact `[keys]` names and the `[key.NAME]` sections that name no declared key, with
  /// the nearest declared name. Patterns are for keys of any name, declared or not.
  private func undeclaredNames(declared: [String]) -> [TetherError] {
    let known = Set(declared)
    func meaning(_ name: String) -> String {
      EditDistance.suggestion(for: name, among: declared).map { "; did you mean \"\($0)\"?" }
        ?? ""
    }
    var errors: [TetherError] = []
    var reported: Set<String> = []
    for rule in mapping.rules where !rule.pattern.hasSuffix("*") && !known.contains(rule.pattern) {
      reported.insert(rule.pattern)
      errors.append(
        .invalidConfiguration(
          message: "[keys] maps \"\(rule.pattern)\", which is not a declared key"
            + meaning(rule.pattern),
          location: "\(origin):\(rule.line)"))
    }
    // A section whose name its own [keys] line misspells too is reported once, at that line.
    for (name, line) in keySectionLines where !known.contains(name) && !reported.contains(name) {
      // A pattern's section, or one no [keys] entry matches, is reported already.
      guard keyOptions[name] != nil else { continue }
      errors.append(
        .invalidConfiguration(
          message: "[key.\(name)] gives options of \"\(name)\", which is not a declared key"
            + meaning(name),
          location: "\(origin):\(line)"))
    }
    return errors
  }
}

extension DeclaredKey {
  /// Why the key cannot be resolved in `registry` as its declared type, or `nil` when it can.
  fileprivate func resolutionError(in registry: StrategyRegistry) -> TetherError? {
    if case .failure(let error) = registry.key(named: name, as: Value.self) { return error }
    return nil
  }
}
