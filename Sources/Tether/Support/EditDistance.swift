/// How far apart two names are, for "did you mean" suggestions.
enum EditDistance {
  /// The number of single-character insertions, deletions and substitutions that turn `a` into
  /// `b` (Levenshtein), comparing characters as written (case counts).
  static func between(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }

  /// The candidate nearest to `name`, when it is near enough to be what was meant: at most a
  /// third of the longer name changed (one edit for short names), and never all of it. Ties
  /// go to the candidate listed first.
  static func suggestion(for name: String, among candidates: [String]) -> String? {
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = between(name, candidate)
      let longer = max(name.count, candidate.count)
      guard distance <= max(1, longer / 3), distance < longer else { continue }
      if distance < best?.distance ?? .max { best = (candidate, distance) }
    }
    return best?.candidate
  }
}
