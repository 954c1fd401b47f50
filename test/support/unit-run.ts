/**
 * True under `npm run test:unit`, the quick loop: the tests that need PostgreSQL or Redis skip
 * there, saying so, whatever the NERKH_REQUIRE_* variables say; `npm test` runs them.
 */
export const unitRun = process.env.NERKH_TEST_UNIT === '1';
