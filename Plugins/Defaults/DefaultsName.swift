import Foundation
import Tether

/// Key names in a defaults file: `ui.theme` is `theme` under `[ui]`.
///
/// Names are checked against ``KeyName`` where they enter the strategy (a key, `tether`'s
/// stored-text calls), so both parts are INI names and no name can add a line or a section.
enum DefaultsName {
  static func split(_ name: String) -> (section: String, key: String) {
    guard let dot = name.lastIndex(of: ".") else { return ("", name) }
    return (String(name[..<dot]), String(name[name.index(after: dot)...]))
  }
}
