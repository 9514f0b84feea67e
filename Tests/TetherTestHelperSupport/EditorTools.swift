public import Foundation
public import Testing
import TetherTesting

/// The ways editors and tools save a file, for the tests that check each one ends in the final
/// content: the watcher's delivery, and a file key's holder.
public enum EditorTools {
  /// The tools' saves, as shell commands run in the file's folder: each turns the `1` in
  /// `data.json` into `2`. Those that take the file away print for how many milliseconds.
  public static let all: [(name: String, script: String)] = [
    ("in-place write", "printf 2 > data.json"),
    ("cp over", "printf 2 > other && cp other data.json"),
    ("mv over", "printf 2 > other && mv other data.json"),
    ("sed -i", "sed -i s/1/2/ data.json"),
    (
      "Python os.replace",
      "python3 -c \"import os,tempfile; fd,p=tempfile.mkstemp(dir='.'); os.write(fd,b'2'); os.close(fd); os.replace(p,'data.json')\""
    ),
    (
      "rm then recreate",
      "python3 -c \"import os,time; t=time.monotonic(); os.remove('data.json'); open('data.json','w').write('2'); print(int((time.monotonic()-t)*1000))\""
    ),
    (
      "mv away then back",
      "python3 -c \"import os,time; t=time.monotonic(); os.rename('data.json','away'); open('away','w').write('2'); os.rename('away','data.json'); print(int((time.monotonic()-t)*1000))\""
    ),
    // Longer than the settle delay with the file truncated: a writer descheduled under load.
    ("a pause between truncating and writing", "{ sleep 0.3; printf 2; } > data.json"),
    // Longer than the maximum wait: an emptied file its writer holds open is waited for longer.
    ("a pause past the maximum wait", "{ sleep 0.8; printf 2; } > data.json"),
  ]

  /// Runs a tool's `script` in `folder`; how long the file was away (by the milliseconds the
  /// script printed; zero when it printed none).
  public static func run(
    _ script: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Duration {
    let output = try await shell(script, in: folder, sourceLocation: sourceLocation).output
    return .milliseconds(Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
  }

  /// Whether vim is installed (`make test` installs it).
  public static let hasVim = FileManager.default.isExecutableFile(atPath: "/usr/bin/vim")

  /// Runs `body` in a folder under `~/.cache`: vim renames only outside /tmp (its default
  /// 'backupskip' covers /tmp).
  public static func withVimFolder(_ body: (URL) async throws -> Void) async throws {
    let folder = FileManager.default.homeDirectoryForCurrentUser
      .appending(path: ".cache/tether-tests/vim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer {
      do {
        try FileManager.default.removeItem(at: folder)
      } catch {
        Issue.record("cannot remove \(folder.path): \(error)")
      }
    }
    try await body(folder)
  }

  /// Has vim turn the `1` in `file` into `2`, and expects it to have replaced the file by
  /// renaming (a new inode), with 'backupskip' cleared. The file is never away: vim renames
  /// its new file over it.
  public static func saveWithVim(_ file: URL, in folder: URL) async throws {
    let before = try inode(file)
    try await shell(
      "vim -u NONE -N -i NONE -n -E -s -c 'set backupcopy=auto writebackup backupskip=' "
        + "-c '%s/1/2/' -c 'wq' data.json", in: folder)
    #expect(try inode(file) != before, "vim replaced the file by renaming")
  }

  /// The inode of the file or folder at `url`.
  public static func inode(_ url: URL) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
  }
}
