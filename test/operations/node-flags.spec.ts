import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const FLAG = '--max-semi-space-size=8';

// Without the flag Node sizes the young generation from the host's memory and the idle service
// keeps more resident than it needs (docs/operations.md#memory): every launcher must pass it.
describe('the service starts with the same Node flags wherever it is launched', () => {
  const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;

  it.each(['start', 'start:prod'])('npm run %s passes the flag to the node that runs the service', (name) => {
    expect(scripts[name]).toMatch(new RegExp(`node ${FLAG} (tools/start\\.mjs|dist/src/main\\.js)`));
  });

  it('the Dockerfile passes it', () => {
    expect(read('Dockerfile')).toContain(`CMD ["node", "${FLAG}", "dist/src/main.js"]`);
  });

  it('the bench measures the service as it is launched', () => {
    expect(read('bench/run.mjs')).toContain(`BENCH_SERVICE_NODE_FLAGS ?? '${FLAG}'`);
  });

  it('the operations guide gives the flag to whoever writes a start of their own', () => {
    expect(read('docs/operations.md')).toContain(FLAG);
  });
});
