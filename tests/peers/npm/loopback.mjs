// Preloaded with `node --import ./loopback.mjs ...`: server-everything's HTTP mode calls
// `listen(port)` with no host, which binds every interface. This makes a numeric-port listen with
// no host bind 127.0.0.1 only, so the test peer is never reachable from outside the machine.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const numeric = typeof port === 'number' || (typeof port === 'string' && /^\d+$/.test(port));
  if (numeric && typeof args[1] !== 'string') {
    args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
