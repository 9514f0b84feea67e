import Tether
import TetherFiles

/// What holders are told: the keys whose value changed, each holder's new value, and the end
/// of the refusal of changes made while they were being told.
extension DefaultsFile {
  /// Tells the holders their new values; then a change of those keys sees them, and the
  /// changes refused meanwhile are told their conflict (see ``State/outrun``).
  static func deliver(_ news: News, state: LockedState<State>, path: String) {
    for (name, subscriber, lookup) in news.deliveries {
      subscriber.deliver(lookup) { state.withLock { $0.seen(name) } }
    }
    guard !news.changed.isEmpty else { return }
    let outrun = state.withLock { state in
      var ended: [(name: String, waiters: [WriteWaiter])] = []
      for name in news.changed where state.delivering[name] == nil {
        if let waiters = state.outrun.removeValue(forKey: name) { ended.append((name, waiters)) }
      }
      return ended
    }
    for (name, waiters) in outrun {
      let conflict = TetherError.conflict(key: name, location: path)
      for waiter in waiters { waiter.completion(.failure(conflict)) }
    }
  }

  /// The holders to tell of the keys whose value now differs from what they were last told,
  /// and those keys (but `written`, whose holders made the value); records what they are told,
  /// and that they are being told (end it with ``deliver(_:state:path:)``). Call holding the
  /// lock.
  static func news(in state: inout State, except written: Set<String> = []) -> News {
    var news: News = ([], [])
    for (name, subscribers) in state.subscribers {
      let new = lookup(name, in: state)
      let told = state.told[name]
      state.told[name] = new
      if written.contains(name) { continue }
      if let told, new.isSame(as: told) { continue }
      news.changed.append(name)
      state.delivering[name, default: 0] += subscribers.count
      state.given[name]?.serial = nil
      for subscriber in subscribers.values { news.deliveries.append((name, subscriber, new)) }
    }
    return news
  }

  static func lookup(_ name: String, in state: State) -> Lookup {
    // Both layers, also when the user's line looks fine: whether it parses depends on the
    // key's type, which only the key knows.
    let registration: Found
    if case .success(let parsed) = state.registration {
      registration = found(name, in: parsed)
    } else {
      registration = .absent
    }
    switch state.user {
    case .failure(let error): return Lookup(user: .unreadable(error), registration: registration)
    case .success(let parsed):
      return Lookup(user: found(name, in: parsed), registration: registration)
    }
  }

  static func found(_ name: String, in parsed: Parsed) -> Found {
    if let problem = parsed.problem(for: name) { return .unreadable(problem) }
    if let stored = parsed.entries[name] { return .value(stored.value, line: stored.line) }
    return .absent
  }
}

extension DefaultsFile.Lookup {
  /// Whether the two give the key the same literals and errors, wherever their lines are: a
  /// line moved by an edit of another key is no change of this one. The registration's layer
  /// counts even under a user's line that parses (which only the key can tell), so an edit of
  /// the registration file is delivered to such a key's holders too, as the value they have.
  func isSame(as other: Self) -> Bool {
    user.isSame(as: other.user) && registration.isSame(as: other.registration)
  }
}

extension DefaultsFile.Found {
  /// The literal, if the line parses.
  var value: INIValue? {
    if case .value(let value, _) = self { return value }
    return nil
  }

  func isSame(as other: Self) -> Bool {
    value == other.value && isError == other.isError
  }

  var isError: Bool {
    if case .unreadable = self { return true }
    return false
  }
}
