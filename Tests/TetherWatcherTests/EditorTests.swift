import Foundation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherFiles
import TetherTesting
import TetherWatcher

/// Every way editors and tools save a file ends in one delivery of the final content.
///
/// A tool that takes the file away and brings it back (`rm` and recreate, `mv` away and back)
/// makes two system calls; a process stalled between them for longer than the settle delay is,
/// rightly, two changes: such a tool says how long the file was away, and the missing file is
/// then allowed before the final content.
@Suite(.timeLimit(.minutes(2))) struct EditorTests {
  /// Watches `data.json` (holding `initial`) in `folder`, runs `change`, and expects exactly one
  /// delivery, of `final`. A sentinel write afterwards proves nothing else was delivered between.
  /// `change` returns whether the file was away longer than the settle delay.
  func expectOneDelivery(
    in folder: URL, initial: String = "1", final: String = "2",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ change: (URL) async throws -> Bool
  ) async throws {
    let file = folder.appending(path: "data.json")
    try Data(initial.utf8).write(to: file)
    let deliveries = Deliveries()
    let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
    let wasAway = try await change(file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      deliveries.lastIs(final)
    }
    try Data("sentinel".utf8).write(to: file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      deliveries.lastIs("sentinel")
    }
    let expected: [FileContent] = [.data(Data(final.utf8)), .data(Data("sentinel".utf8))]
    #expect(
      deliveries.all == expected || wasAway && deliveries.all == [.missing] + expected,
      "\(deliveries.all); \(watcherState())", sourceLocation: sourceLocation)
    watch.cancel()
  }

  /// The ways tools save a file, as shell commands run in its folder: each turns the `1` in
  /// `data.json` into `2`. Those that take the file away print for how many milliseconds.
  static let tools: [(name: String, script: String)] = [
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

  @Test(arguments: tools)
  func aToolsSaveIsDeliveredOnce(_ name: String, _ script: String) async throws {
    try await withTemporaryDirectory { folder in
      try await expectOneDelivery(in: folder) { _ in try await runTool(script, in: folder) }
    }
  }

  /// What a user sees: a file key's holder takes the tool's final value, having passed through
  /// nothing else — no default for a file briefly missing or empty, no error.
  @Test(.tetherBootstrap(), arguments: tools)
  func aToolsSaveReachesAFileKeysHolderAsItsOnlyChange(
    _ name: String, _ script: String
  )
    async throws
  {
    try await withTemporaryDirectory { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { _ in
        try await runTool(script, in: folder)
      }
    }
  }

  /// Holds `data.json` (holding `1`) in `folder` through a file key, runs `change`, and expects
  /// the holder's changes to be `1`, `2` and then a sentinel written afterwards (with the default
  /// between `1` and `2` only if `change` says the file was away past the settle delay).
  func expectHolderSeesOnlyTheFinalValue(
    in folder: URL, sourceLocation: SourceLocation = #_sourceLocation,
    _ change: (URL) async throws -> Bool
  ) async throws {
    let file = folder.appending(path: "data.json")
    try Data("1".utf8).write(to: file)
    @Shared(.fileStorage(file)) var value = 0
    let seen = Mutex<[Int]>([])
    let listener = Task { [$value] in
      for await value in $value.changes { seen.withLock { $0.append(value) } }
    }
    await expectEventually(timeout: .seconds(30)) { seen.withLock { $0 == [1] } }
    let wasAway = try await change(file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) { value == 2 }
    try Data("3".utf8).write(to: file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      seen.withLock { $0.last == 3 }
    }
    listener.cancel()
    let changes = seen.withLock { $0 }
    #expect(
      changes == [1, 2, 3] || wasAway && changes == [1, 0, 2, 3],
      "\(changes); \(watcherState())", sourceLocation: sourceLocation)
    #expect($value.loadError == nil, sourceLocation: sourceLocation)
  }

  @Test(.tetherBootstrap()) func foundationAtomicWriteReachesAFileKeysHolder() async throws {
    try await withTemporaryDirectory { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { file in
        try Data("2".utf8).write(to: file, options: .atomic)
        return false
      }
    }
  }

  @Test func foundationAtomicWriteIsDeliveredOnce() async throws {
    try await withTemporaryDirectory { folder in
      try await expectOneDelivery(in: folder) { file in
        try Data("2".utf8).write(to: file, options: .atomic)
        return false
      }
    }
  }

  /// vim renames only outside /tmp (its default 'backupskip' covers /tmp), so this runs under
  /// ~/.cache and clears 'backupskip' too; the changed inode proves the rename path was taken.
  @Test(.enabled(if: hasVim))
  func vimSavingByRenameIsDeliveredOnce() async throws {
    try await withVimFolder { folder in
      // vim ends the file with a newline.
      try await expectOneDelivery(in: folder, initial: "1\n", final: "2\n") { file in
        try await saveWithVim(file, in: folder)
      }
    }
  }

  @Test(.enabled(if: hasVim), .tetherBootstrap())
  func vimSavingByRenameReachesAFileKeysHolder() async throws {
    try await withVimFolder { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { file in
        try await saveWithVim(file, in: folder)
      }
    }
  }

  static let hasVim = FileManager.default.isExecutableFile(atPath: "/usr/bin/vim")

  func withVimFolder(_ body: (URL) async throws -> Void) async throws {
    let folder = FileManager.default.homeDirectoryForCurrentUser
      .appending(path: ".cache/tether-tests/vim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { _ = try? FileManager.default.removeItem(at: folder) }
    try await body(folder)
  }

  /// Has vim turn the `1` in `file` into `2`, and expects it to have replaced the file by
  /// renaming (a new inode). The file is never away: vim renames its new file over it.
  func saveWithVim(_ file: URL, in folder: URL) async throws -> Bool {
    let before = try inode(file)
    try await shell(
      "vim -u NONE -N -i NONE -n -E -s -c 'set backupcopy=auto writebackup backupskip=' "
        + "-c '%s/1/2/' -c 'wq' data.json", in: folder)
    #expect(try inode(file) != before, "vim replaced the file by renaming")
    return false
  }

  /// Runs a tool's script in `folder`; whether the file was away (by the milliseconds the script
  /// printed, if it printed any) for longer than the settle delay.
  func runTool(
    _ script: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Bool {
    let output = try await shell(script, in: folder, sourceLocation: sourceLocation).output
    let away = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    return .milliseconds(away) >= FileWatcher.shared.settleDelay
  }

  /// What the watcher went through, for a failure's message.
  func watcherState() -> String {
    let statistics = FileWatcher.shared.statistics
    return "overflows \(statistics.overflows), rebuilds \(statistics.rebuilds), "
      + "fallback \(String(describing: statistics.fallback)), "
      + "polled \(statistics.polledPaths.count)"
  }
}
