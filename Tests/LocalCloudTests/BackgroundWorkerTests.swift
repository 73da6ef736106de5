import Foundation
import Synchronization
import Testing
@testable import LocalCloud

/// A remote store's prober runs different jobs ("the stream opened: reachable", "the stream
/// dropped: probe"). A second job started while the first runs must run next, not the first again:
/// a lost probe left the screen online while the server was gone.
@Suite struct BackgroundWorkerTests {
    @Test func aStepStartedWhileAnotherRunsIsTheOneRunNext() async throws {
        let worker = BackgroundWorker(name: "test")
        let ran = Mutex<[String]>([])
        let firstIsRunning = Wakeup()
        let releaseFirst = Wakeup()
        let secondRan = Wakeup()
        worker.start {
            ran.withLock { $0.append("first") }
            firstIsRunning.fire()
            await releaseFirst.wait(upTo: .seconds(30))
            return false
        }
        await firstIsRunning.wait(upTo: .seconds(30))
        worker.start {
            ran.withLock { $0.append("second") }
            secondRan.fire()
            return false
        }
        releaseFirst.fire()
        await secondRan.wait(upTo: .seconds(30))
        #expect(ran.withLock { $0 } == ["first", "second"])
        worker.stop()
    }
}
