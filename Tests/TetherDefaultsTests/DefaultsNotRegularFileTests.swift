import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A defaults file that is a FIFO: a load and a save error naming it, never a block.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsNotRegularFileTests {
  @Test func aDefaultsFileThatIsAFIFOIsALoadAndASaveErrorAndNeverBlocks() async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "defaults.ini")
      try makeFIFO(at: pipe)
      let store = DefaultsStore(file: pipe)
      await expectAKeyOfAFIFOFailsNamingItAndNeverBlocks(
        "a FIFO defaults file's first load", pipe: pipe, in: folder
      ) {
        @Shared(.defaults("count", store: store)) var count = 0
        return $count
      }
    }
  }
}
