import Foundation
import Glibc
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherFiles
import TetherTestHelperSupport
import TetherTesting

/// An editor writing a file in place (truncate, then write, in two steps a moment apart) while
/// the app keeps changing the file's key: the holder never sees the file empty or half written
/// (issue 34, item 3; DESIGN §12).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(3))) struct InPlaceEditorTests {
  @Test func aHolderNeverSeesAnInPlaceEditHalfDone() async throws {
    let seconds = Soak.size(ci: 4, soak: 30)
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "count.json")
      try Data("1000".utf8).write(to: file)
      @Shared(.fileStorage(file)) var count = -1
      await expectEventually { count == 1000 }
      let stop = Atomic(false)
      let stopped = Atomic(false)
      // The editor: `open(O_TRUNC)`, "50", a moment, "00", close — every 50 ms.
      let editor = Thread {
        while !stop.load(ordering: .relaxed) {
          Self.editInPlace(file)
          usleep(50_000)
        }
        stopped.store(true, ordering: .releasing)
      }
      editor.start()
      // What the app finds each time it counts on: the editor's edit, its own last value, or
      // (never) the default or the edit's first half.
      var (edits, defaults, halves) = (0, 0, 0)
      var last = 1000
      let deadline = ContinuousClock.now + .seconds(seconds)
      while ContinuousClock.now < deadline {
        let found = $count.withLock { value -> Int in
          defer { value += 1 }
          return value
        }
        if found == -1 { defaults += 1 }
        if found == 50 && found != last { halves += 1 }
        if found == 5000 { edits += 1 }
        last = found + 1
        try await Task.sleep(for: .milliseconds(2))
      }
      stop.store(true, ordering: .relaxed)
      await expectEventually { stopped.load(ordering: .acquiring) }
      // The editor's last save, made after the app's last change, reaches the holder (and did
      // \(edits) times while it raced).
      Self.editInPlace(file)
      await expectEventually(timeout: .seconds(15), "edits seen while racing: \(edits)") {
        count == 5000
      }
      #expect(count == 5000, "the holder; the file holds \(text(file) ?? "nothing")")
      #expect(defaults == 0, "the default, for a file seen empty, \(defaults) times")
      #expect(halves == 0, "a half-written file, \(halves) times")
      #expect($count.loadError == nil)
    }
  }

  /// An editor saving the bytes the file already holds makes an edit all the same: it wins
  /// over a local change still waiting to be written (DESIGN §5), though no byte on disk
  /// changed, and the holder shows what the editor saved.
  @Test func anEditorSavingTheBytesTheFileHoldsWinsOverAPendingLocalChange() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "10s") {
        @Shared(.registered("v")) var value = 0
        let url = folder.appending(path: "v.json")
        $value.withLock { $0 = 1 }
        await expectEventually(timeout: .seconds(30)) { text(url) == "1" }
        $value.withLock { $0 = 2 }  // pending for 10 s
        // Saved in place until the file's clock has moved on: a save within the tick of the
        // last write, changing no byte and not the size, is not told from no save at all.
        let written = FileVersion.of(url.path)
        await expectEventually(timeout: .seconds(10)) {
          Self.save(Data("1".utf8), inPlace: url)
          return FileVersion.of(url.path) != written
        }
        await expectEventually(timeout: .seconds(30)) { value == 1 }
        await TetherSystem.flush()
        #expect(text(url) == "1", "the dropped local change is not written later")
      }
    }
  }

  /// Truncates `file` and writes `data` into it, as an editor saving in place does.
  static func save(_ data: Data, inPlace file: URL) {
    let fd = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }

  /// An in-place save of 5000: truncate, "50", a moment, "00", close.
  static func editInPlace(_ file: URL) {
    let fd = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = "50".withCString { write(fd, $0, 2) }
    usleep(2_000)
    _ = "00".withCString { write(fd, $0, 2) }
    close(fd)
  }
}
