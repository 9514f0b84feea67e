/// A strategy the config names whose kind this program does not have: recorded instead of
/// reported when the registry tolerates unknown kinds (``StrategyRegistry/UnknownKinds``), as
/// the `tether` tool does for an app's own strategies.
package struct ForeignStrategy: Sendable, Equatable {
  /// The name `[keys]` uses: the kind itself, or the name of a `[strategy.NAME]` section.
  package let name: String
  /// The kind this program does not have.
  package let kind: String
  /// The line that names the kind: the section's `kind =` line or header, or the first `[keys]`
  /// rule that names it when no section does.
  package let line: Int
  /// `strategy.NAME` when a section configures it (its options are not checked), else `nil`.
  package let section: String?

  /// A record of strategy `name`, of `kind`, named at `line` (in `section`, if one configures
  /// it).
  package init(name: String, kind: String, line: Int, section: String?) {
    self.name = name
    self.kind = kind
    self.line = line
    self.section = section
  }
}
