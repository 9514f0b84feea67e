import Foundation
import Tether

/// Key names in a defaults file: `ui.theme` is `theme` under `[ui]`.
enum DefaultsName {
  static func split(_ name: String) -> (section: String, key: String) {
    guard let dot = name.lastIndex(of: ".") else { return ("", name) }
    return (String(name[..<dot]), String(name[name.index(after: dot)...]))
  }

  /// Whether `name` can be written: both parts use the INI name characters.
  static func isValid(_ name: String) -> Bool {
    let (section, key) = split(name)
    return (section.isEmpty || INIDocument.isValidName(section)) && INIDocument.isValidName(key)
      && !key.contains(".")
  }

  static func lockPath(for path: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    return folder + "/." + (path as NSString).lastPathComponent + ".lock"
  }
}
