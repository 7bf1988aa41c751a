import { teardownRun } from './redis-run';

/** Jest's globalTeardown (jest.config.js). */
export default teardownRun;
