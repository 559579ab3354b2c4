/**
 * Suites that need a service this machine may lack (PostgreSQL, Redis). When it answers, the suite
 * runs. When it does not, the suite is skipped with a message naming the service — unless
 * SVC_TEST_REQUIRE_ALL=1 (set by .ci/run, which installs and starts them), where the absence is
 * itself a failing test. The one place that decides between skipping and failing.
 */
export function describeWithService(service: { name: string; url: string; reachable: boolean; reason?: string }, title: string, suite: () => void): void {
  if (service.reachable) {
    describe(title, suite);
    return;
  }
  const message = `${service.name} is not reachable at ${service.url}${service.reason ? ` (${service.reason})` : ''}: "${title}" needs it`;
  if (process.env.SVC_TEST_REQUIRE_ALL === '1') {
    test(`${service.name} is reachable (SVC_TEST_REQUIRE_ALL=1)`, () => {
      throw new Error(`${message}, and SVC_TEST_REQUIRE_ALL=1 forbids skipping`);
    });
    return;
  }
  console.warn(`${message}; skipped (set SVC_TEST_REQUIRE_ALL=1 to fail instead).`);
  describe.skip(title, suite);
}
