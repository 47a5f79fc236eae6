// Swift Testing glue shared by the test targets. Everything that does not need Swift Testing
// (gates, counters, deadlines, fake providers, trace expectations) is in ContainerTesting.
public import ContainerTesting
public import Testing

/// Records a test failure; returns `Void`, so `guard ... else { return fail("...") }` reads in one line.
public func fail(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record(comment, sourceLocation: sourceLocation)
}

/// Records an issue for every check that did not pass (`✗ claim: detail`).
public func expectPassed(_ results: [CheckResult], sourceLocation: SourceLocation = #_sourceLocation) {
    for result in results where !result.passed {
        Issue.record("\(result)", sourceLocation: sourceLocation)
    }
}
