import type { SignInAttempt } from '../identity/sign-in-throttle.js';
import { clientIp } from './client-ip.js';
import type { AppContext } from './context.js';

/** A password sign-in as the request makes it: the e-mail, and the client address it came from (operations/sign-in.ts). */
export function signInAttempt(ctx: AppContext, email: string): SignInAttempt {
  return { email, ip: clientIp(ctx, ctx.services.config.TRUST_PROXY_HOPS), requestId: ctx.state.requestId };
}
