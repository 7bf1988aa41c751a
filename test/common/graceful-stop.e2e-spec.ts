import { PasswordHasher } from '../../src/user-account/password-hasher';
import { BACKENDS } from '../support/backends';
import { BAD_CREDENTIALS } from '../support/envelopes';
import { createActiveUser } from '../support/factories';
import { startApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/*
 * A stop (SIGTERM on a rolling restart) while logins wait for their BCrypt compare: the service stops
 * taking requests, but those it took answer as they would have, with their log rows, not INTERNAL.
 */
describe.each(BACKENDS)('a stop during logins on $name', (backend) => {
  it('lets every login already taken finish: right passwords OK, wrong ones BAD_CREDENTIALS, each logged', async () => {
    const provisioned = await backend.provision();
    try {
      // One compare at a time at cost 10: the logins queue for the compare while the stop begins.
      const app = await startApp(backend, {
        provisioned,
        env: { BCRYPT_COST: '10', BCRYPT_CONCURRENCY: '1', LOGIN_QUEUE_MS: '60000' },
      });
      const user = await createActiveUser(app);
      const before = await app.logRows(user.username);
      const compares = jest.spyOn(app.app.get(PasswordHasher), 'matches');
      const logins = [user.password, 'Wrong#pass1', user.password, 'Wrong#pass1'].map((password, i) =>
        app.login(user.username, password, { ip: `10.7.0.${i + 1}` }),
      );
      // The stop begins once all four are in their handlers, waiting for the compare.
      await waitFor(() => compares.mock.calls.length === 4, 'four compares asked for');
      await app.app.close();

      const replies = await Promise.all(logins);
      expect(replies.map((r) => r.body.code)).toEqual(['OK', 'BAD_CREDENTIALS', 'OK', 'BAD_CREDENTIALS']);
      expect(replies[1].body).toEqual(BAD_CREDENTIALS);

      // The rows, read by the next instance on the same database.
      const next = await startApp(backend, { provisioned });
      try {
        const after = (await next.logRows(user.username)).slice(before.length);
        expect(after.map((r) => r.status).sort()).toEqual(['passwrong', 'passwrong', 'success', 'success']);
      } finally {
        await next.app.close();
      }
    } finally {
      await provisioned.dispose();
    }
  });
});
