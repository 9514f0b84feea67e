import Testing
import TetherFiles
import TetherWatcher

/// The folders' rules, without inotify: one watch request per folder, idling, release, and
/// which folders a sync looks at.
@Suite struct WatchedFoldersTests {
  let folder = HashedPath("/data/a")
  let other = HashedPath("/data/b")

  private func file(_ name: String, in folder: HashedPath) -> HashedPath {
    HashedPath(folder.string + "/" + name)
  }

  @Test func aFolderIsRequestedOnceHoweverManyOfItsFilesAreWatched() {
    var folders = WatchedFolders()
    var requests: UInt64 = 0
    let first = folders.add(file("1.json", in: folder), to: folder) {
      requests += 1
      return requests
    }
    let second = folders.add(file("2.json", in: folder), to: folder) {
      requests += 1
      return requests
    }
    #expect(requests == 1)
    #expect(first == second)
    #expect(folders.files(in: folder).count == 2)
  }

  @Test func aFolderWhoseLastFileGoesLingersIdleUntilReleased() {
    var folders = WatchedFolders()
    let one = file("1.json", in: folder)
    _ = folders.add(one, to: folder) { 1 }
    guard case .idle = folders.remove(one, from: folder, linger: true, now: 1_000) else {
      Issue.record("the folder's last file went: it must idle, with a release to schedule")
      return
    }
    // A second folder idling meanwhile needs no second release.
    let two = file("2.json", in: other)
    _ = folders.add(two, to: other) { 2 }
    guard case .idleAlreadyScheduled = folders.remove(two, from: other, linger: true, now: 1_500)
    else {
      Issue.record("a release is scheduled already")
      return
    }
    let early = folders.releaseIdle(now: 1_999, linger: 1_000)
    #expect(!early.released)
    #expect(early.next == 1)
    let due = folders.releaseIdle(now: 2_000, linger: 1_000)
    #expect(due.released)
    #expect(folders.requestedAt(folder) == nil)
    #expect(due.next == 500, "the other folder is due half a linger later")
    let last = folders.releaseIdle(now: 2_500, linger: 1_000)
    #expect(last.released && last.next == nil)
  }

  @Test func aFileJoiningAnIdleFolderKeepsItsWatch() {
    var folders = WatchedFolders()
    let one = file("1.json", in: folder)
    _ = folders.add(one, to: folder) { 1 }
    _ = folders.remove(one, from: folder, linger: true, now: 0)
    let generation = folders.add(file("2.json", in: folder), to: folder) {
      Issue.record("an idle folder is watched still: no new request")
      return 9
    }
    #expect(generation == 1)
    let release = folders.releaseIdle(now: 10_000, linger: 1_000)
    #expect(!release.released)
    #expect(folders.requestedAt(folder) != nil)
  }

  @Test func aFolderThatCannotLingerGoesAtOnceAndTheNextSyncLooksAtEveryFolder() {
    var folders = WatchedFolders()
    let one = file("1.json", in: folder)
    _ = folders.add(one, to: folder) { 1 }
    _ = folders.add(file("2.json", in: other), to: other) { 2 }
    let added = folders.planSync(
      full: false, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    #expect(added.onlyAdded)
    #expect(added.wanted == ["/data/a", "/data/b"])
    guard case .removed = folders.remove(one, from: folder, linger: false, now: 0) else {
      Issue.record("a folder that cannot linger goes at once")
      return
    }
    let after = folders.planSync(
      full: false, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in true })
    #expect(!after.onlyAdded, "a folder went: every folder is looked at")
    #expect(after.wanted == ["/data/b"])
  }

  @Test func aSyncLooksOnlyAtFoldersAddedSinceTheLastOne() {
    var folders = WatchedFolders()
    _ = folders.add(file("1.json", in: folder), to: folder) { 1 }
    _ = folders.planSync(
      full: false, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    _ = folders.add(file("2.json", in: other), to: other) { 2 }
    let plan = folders.planSync(
      full: false, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    #expect(plan.examined == [other])
    let full = folders.planSync(
      full: true, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    #expect(Set(full.examined) == [folder, other])
  }

  @Test func aFolderWhoseFilesAreAllPolledNeedsNoWatch() {
    var folders = WatchedFolders()
    let one = file("1.json", in: folder)
    _ = folders.add(one, to: folder) { 1 }
    let plan = folders.planSync(
      full: true, isPolled: { $0 == one }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    #expect(plan.wanted.isEmpty)
  }

  @Test func foldersAwaitedAtAPathAreItAndThoseUnderIt() {
    var folders = WatchedFolders()
    let deep = HashedPath("/data/a/deep")
    _ = folders.add(file("1.json", in: deep), to: deep) { 1 }
    _ = folders.add(file("2.json", in: other), to: other) { 2 }
    #expect(folders.awaited(at: "/data/a").isEmpty, "not looked at yet: its wake-up will")
    _ = folders.planSync(
      full: false, isPolled: { _ in false }, watchedHere: { _ in false },
      threadWatches: { _ in false })
    #expect(folders.awaited(at: "/data/a") == ["/data/a/deep"])
    #expect(folders.files(within: "/data/a").map(\.string) == ["/data/a/deep/1.json"])
  }
}
