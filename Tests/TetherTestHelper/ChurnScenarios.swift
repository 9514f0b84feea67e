import Foundation
import Synchronization
import Tether
import TetherFileStorage
import TetherFiles
import TetherWatcher

// Many threads making and dropping keys while other files change.
extension Helper {
  /// `keyChurn`: see ``HelperCommand/keyChurn(folder:)``. Each key made and dropped adds and
  /// cancels a watch, under the lock the watcher thread takes events up under.
  static func keyChurn(folder root: String) {
    let noisy = "\(root)/noisy"
    make(noisy)
    let anchor = FileWatcher.shared.watch("\(noisy)/anchor") { _ in }
    let bystander = "\(root)/bystander/data.json"
    make("\(root)/bystander")
    write(bystander, "before")
    let arrivedAt = Mutex<ContinuousClock.Instant?>(nil)
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(bystander) { content in
      if case .data(let data) = content, data == Data("after".utf8) {
        arrivedAt.withLock { $0 = $0 ?? .now }
      }
      recorder.record(content)
    }
    let churning = DispatchSemaphore(value: 0)
    let churned = DispatchGroup()
    // Set once the change is made and the watcher resumed: each thread makes 600 more keys from
    // there, however long the noise took to queue (a fixed count in all raced that, and lost
    // to it in a loaded run).
    let changeMade = Atomic(false)
    for thread in 0..<8 {
      churned.enter()
      Thread {
        var round = 0
        var afterTheChange = 0
        while afterTheChange < 600 {
          if thread == 0 && round == 20 { churning.signal() }
          let url = URL(filePath: "\(root)/k\(thread)-\(round % 5)/value.json")
          let key = Shared(wrappedValue: 0, .fileStorage(url))
          _ = key.wrappedValue
          round += 1
          if changeMade.load(ordering: .acquiring) { afterTheChange += 1 }
        }
        churned.leave()
      }.start()
    }
    churning.wait()
    // Events for the watcher thread to take up before the change's, queued while it is paused:
    // 8,000 (the kernel queues 16,384).
    let noise = NoiseFiles(in: noisy)
    FileWatcher.shared.pauseForTesting()
    noise.modify(8_000)
    noise.close()
    write("\(bystander).new", "after")
    guard rename("\(bystander).new", bystander) == 0 else { fail("rename: \(errno)") }
    FileWatcher.shared.resumeForTesting()
    changeMade.store(true, ordering: .releasing)
    churned.wait()
    let churnEnded = ContinuousClock.now
    let arrivals = recorder.waitAndCount()
    report(FileWatcher.shared.statistics) {
      $0.delivered = arrivals.delivered
      $0.deliveredWhileChurning = arrivedAt.withLock { $0 }.map { $0 < churnEnded } ?? false
    }
    withExtendedLifetime((anchor, watch)) {}
  }
}
