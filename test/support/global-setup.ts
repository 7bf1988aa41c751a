import { setupRun } from './redis-run';

/** Jest's globalSetup (jest.config.js). */
export default setupRun;
