import Foundation
import Synchronization
import Testing
@testable import LocalCloud

@Suite struct OperationTests {
    @Test func queryOperationReportsRecordsAndACursor() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        _ = try await db.modifyRecords(saving: (0..<5).map { restaurant("q\($0)") }, deleting: [])
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let operation = QueryOperation(query: query)
        #expect(operation.resultsLimit == QueryOperation.maximumResults)
        operation.resultsLimit = 3
        operation.desiredKeys = ["name"]
        let matched = Collected<Record>()
        let cursors = Collected<Query.Cursor?>()
        operation.recordMatchedBlock = { _, result in if let record = try? result.get() { matched.append(record) } }
        operation.queryResultBlock = { result in cursors.append(try? result.get()) }
        db.add(operation)
        #expect(await poll { cursors.count == 1 })
        #expect(matched.count == 3)
        #expect(matched.values.allSatisfy { $0.allKeys() == ["name"] })
        let cursor = try #require(cursors.values.first ?? nil)

        let next = QueryOperation(cursor: cursor)
        let more = Collected<Record>()
        let done = Collected<Bool>()
        next.recordMatchedBlock = { _, result in if let record = try? result.get() { more.append(record) } }
        next.queryResultBlock = { result in done.append((try? result.get()) == .some(nil)) }
        db.add(next)
        #expect(await poll { done.count == 1 })
        #expect(done.values == [true])
        #expect(more.count == 2)
        #expect(Set((matched.values + more.values).map(\.recordID)).count == 5)
    }

    @Test func queryWithoutAccountInPrivateIsNotAuthenticated() async throws {
        let cloud = TestCloud()
        let db = cloud.container(user: nil).privateCloudDatabase
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        await #expect { try await db.records(matching: query) } throws: { ($0 as? CloudError)?.code == .notAuthenticated }
    }

    @Test func resultsLimitAbove400IsLimitExceeded() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        await #expect { try await db.records(matching: query, resultsLimit: 401) } throws: { ($0 as? CloudError)?.code == .limitExceeded }
        await #expect { try await db.records(matching: query, resultsLimit: -1) } throws: { ($0 as? CloudError)?.code == .invalidArguments }
    }

    @Test func fetchRecordsOperationReportsEachRecordAndPartialFailure() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let saved = try await db.save(restaurant("here"))
        let missing = Record.ID(recordName: "gone")
        let operation = FetchRecordsOperation(recordIDs: [saved.recordID, missing])
        operation.desiredKeys = ["name"]
        let perRecord = Collected<(Record.ID, Bool)>()
        let final = Collected<CloudError?>()
        operation.perRecordResultBlock = { id, result in perRecord.append((id, (try? result.get()) != nil)) }
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error as? CloudError) } else { final.append(nil) }
        }
        db.add(operation)
        #expect(await poll { final.count == 1 })
        #expect(perRecord.values.map(\.0) == [saved.recordID, missing])
        #expect(perRecord.values.map(\.1) == [true, false])
        let error = try #require(final.values.first ?? nil)
        #expect(error.code == .partialFailure)
        #expect(error.partialErrorsByItemID[AnyHashableSendable(missing)]?.code == .unknownItem)
    }

    @Test func blocksRunOffTheCallersThread() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let blockThread = Mutex<pthread_t?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let callerThread = Mutex<pthread_t?>(nil)
        let thread = Thread {
            callerThread.withLock { $0 = pthread_self() }
            let operation = FetchRecordsOperation(recordIDs: [])
            operation.fetchRecordsResultBlock = { _ in
                blockThread.withLock { $0 = pthread_self() }
                semaphore.signal()
            }
            db.add(operation)
            semaphore.wait()
        }
        thread.start()
        #expect(await poll { blockThread.withLock { $0 } != nil })
        let caller = try #require(callerThread.withLock { $0 })
        let block = try #require(blockThread.withLock { $0 })
        #expect(pthread_equal(caller, block) == 0)
    }

    @Test func cancellingAnOperationReportsOperationCancelled() async throws {
        let cloud = TestCloud()
        let db = cloud.container(latency: .seconds(3600)).publicCloudDatabase
        let operation = ModifyRecordsOperation(recordsToSave: [restaurant("never")])
        let final = Collected<CloudError.Code?>()
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append((error as? CloudError)?.code) } else { final.append(nil) }
        }
        operation.queuePriority = .veryHigh
        operation.qualityOfService = .userInitiated
        db.add(operation)
        operation.cancel()
        #expect(await poll(timeout: .seconds(30)) { final.count == 1 })
        #expect(final.values == [.operationCancelled])

        let early = FetchRecordsOperation(recordIDs: [])
        let earlyResult = Collected<CloudError.Code?>()
        early.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { earlyResult.append((error as? CloudError)?.code) } else { earlyResult.append(nil) }
        }
        early.cancel()
        db.add(early)
        #expect(await poll(timeout: .seconds(30)) { earlyResult.count == 1 })
        #expect(earlyResult.values == [.operationCancelled])
    }

    @Test func cancellingTheTaskCancelsTheConvenienceCall() async throws {
        let cloud = TestCloud()
        let db = cloud.container(latency: .seconds(30)).publicCloudDatabase
        let started = ContinuousClock.now
        let task = Task { try await db.save(restaurant("cancelled")) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect { try await task.value } throws: { ($0 as? CloudError)?.code == .operationCancelled }
        #expect(ContinuousClock.now - started < .seconds(120))  // latency is an hour: finishing at all proves the cancel
    }

    @Test func simulatedLatencyDelaysEveryOperation() async throws {
        let cloud = TestCloud()
        let db = cloud.container(latency: .milliseconds(300)).publicCloudDatabase
        let started = ContinuousClock.now
        _ = try await db.save(restaurant("slow"))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test func higherPriorityOperationsRunFirstOnABusyQueue() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        db.queue.isSuspended = true
        let order = Collected<String>()
        let done = Collected<Bool>()
        var operations: [FetchRecordsOperation] = []
        for (name, priority) in [("low", Operation.QueuePriority.veryLow), ("high", .veryHigh), ("normal", .normal)] {
            let operation = FetchRecordsOperation(recordIDs: [])
            operation.queuePriority = priority
            operation.fetchRecordsResultBlock = { _ in order.append(name); done.append(true) }
            operations.append(operation)
        }
        let previous = db.queue.maxConcurrentOperationCount
        db.queue.maxConcurrentOperationCount = 1
        operations.forEach(db.add)
        db.queue.isSuspended = false
        #expect(await poll { done.count == 3 })
        db.queue.maxConcurrentOperationCount = previous
        #expect(order.values == ["high", "normal", "low"])
    }

    @Test func completionHandlerForms() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = restaurant("handler")
        let saved = Collected<Record?>()
        db.save(record) { record, _ in saved.append(record) }
        #expect(await poll { saved.count == 1 })
        #expect(saved.values.first??.recordChangeTag != nil)

        let fetched = Collected<String?>()
        db.fetch(withRecordID: record.recordID) { record, _ in fetched.append(record?["name"] as? String) }
        #expect(await poll { fetched.count == 1 })
        #expect(fetched.values == ["handler"])

        let performed = Collected<Int>()
        db.perform(Query(recordType: "Restaurant", predicate: Predicate(value: true)), inZoneWith: nil) { records, _ in
            performed.append(records?.count ?? -1)
        }
        #expect(await poll { performed.count == 1 })
        #expect(performed.values == [1])

        let deleted = Collected<Record.ID?>()
        db.delete(withRecordID: record.recordID) { id, _ in deleted.append(id) }
        #expect(await poll { deleted.count == 1 })
        #expect(deleted.values == [record.recordID])

        let errors = Collected<CloudError.Code?>()
        db.fetch(withRecordID: record.recordID) { _, error in errors.append((error as? CloudError)?.code) }
        #expect(await poll { errors.count == 1 })
        #expect(errors.values == [.unknownItem])
    }
}
