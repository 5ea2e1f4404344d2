/**
 * Registers the embedded identity provider on the Fastify app (DESIGN.md §3
 * "Sign-in"): the provider itself under /idp/realms/whistleblower, our own
 * sign-in and new-password pages, the assets those pages use, and the sweeps
 * (expired follow accounts, expired provider rows, old throttle rows).
 *
 * oidc-provider is a Koa application: its requests are handed over raw
 * (`reply.hijack()`), with our security headers set first, so its pages obey the
 * same Content-Security-Policy as the rest of the portal.
 */
import { createHash, createHmac } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorize } from '../security/roles.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { companyByHost, type Company } from '../companies/service.ts';
import { CASE_NUMBER, LANGUAGES, LIMITS, normalizeCaseNumber, type Language } from '../../machines/schema.ts';
import { PayloadCrypto, destroyAccountPayloads, sweepExpiredPayloads } from './adapter.ts';
import { IdpKeys, type KeySet } from './keys.ts';
import { CLIENT_ID, MOUNT, RESOURCE_SCOPES, createProvider, isUuid, resourceFor, type KoaCtx } from './provider.ts';
import { identitySettings, type IdentitySettings } from './settings.ts';
import { SigninThrottle, type Attempt } from './throttle.ts';
import { acceptLanguageTags, htmlLang, pickLanguage, translator } from './i18n.ts';
import { errorPage, loggedOutPage, logoutPage, newPasswordPage, nothingToSignOutPage, signInPage, type PageFrame } from './pages.ts';
import { TokenVerifier } from './tokens.ts';
import { sweepExpiredAccounts } from './expiry.ts';
import { ProofOfWork } from '../security/pow.ts';
import type { PowChallenge } from '../../core/pow.ts';
import { bindCompany } from '../logging.ts';
import { DEFAULT_KDF, kdfOf, kdfText, newSalt, parseKdf, parseSalt, parseVerifier, serverReporterKeys, serverVerifier, type AnsweredKdf } from '../cases/reporter-keys.ts';
import { addReporterWrap, dropStaleReporterWrap, isMigrating, needsReporterWrap } from '../keys/migrate-wraps.ts';
import { parseRewraps, reporterWrapsOf, swapReporterWraps, type ReporterRewrap } from '../cases/reporter-rewrap.ts';
import type { Kdf } from '../../core/crypto/index.ts';

export { MOUNT, CLIENT_ID } from './provider.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The embedded identity provider (server/idp): key rotation, token checks. */
    identity: IdentityService;
  }
}

const IDP_CSS = readFileSync(new URL('./assets/idp.css', import.meta.url), 'utf8');
const LOGOUT_JS = readFileSync(new URL('./assets/logout.js', import.meta.url), 'utf8');
const PASSWORD_JS = readFileSync(new URL('./assets/password.js', import.meta.url), 'utf8');
const SIGNIN_JS = readFileSync(new URL('./assets/signin.js', import.meta.url), 'utf8');
const DERIVE_JS = readFileSync(new URL('./assets/derive.js', import.meta.url), 'utf8');
/** hash-wasm's own Argon2id build (WebAssembly inside), from our origin, for derive.js. */
const ARGON2_JS = readFileSync(createRequire(import.meta.url).resolve('hash-wasm/dist/argon2.umd.min.js'), 'utf8');
const QUICK_EXIT_JS = readFileSync(new URL('./assets/quick-exit.js', import.meta.url), 'utf8');
const SIGNIN_POW_WORKER_JS = readFileSync(new URL('./assets/signin-pow.worker.js', import.meta.url), 'utf8');
/**
 * The SHA-256 of @noble/hashes (the module the SPA's worker uses, core/pow.ts),
 * served from our origin as the ES modules it ships, for the sign-in page's worker.
 */
const NOBLE_DIR = path.dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha2.js'));
const NOBLE_MODULES = new Map(['sha2.js', '_md.js', '_u64.js', 'utils.js'].map((name) => [name, readFileSync(path.join(NOBLE_DIR, name), 'utf8')]));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type OidcProvider = any;

interface CachedProvider {
  provider: OidcProvider;
  callback: (req: unknown, res: unknown) => void;
}

const PASSWORD_STEP_MS = 15 * 60_000;
const MAX_PROVIDERS = 200;

export class IdentityService {
  readonly settings: IdentitySettings;
  readonly keys: IdpKeys;
  readonly verifier: TokenVerifier;
  private keySet!: KeySet;
  private providers = new Map<string, CachedProvider>();
  private throttle!: SigninThrottle;
  /** The sign-in form's proof-of-work while a company sees a burst of failures. */
  private signinPow!: ProofOfWork;
  /** Hashes and seals the provider's rows (adapter.ts); tests use it to find a case's rows. */
  payloadCrypto!: PayloadCrypto;
  private keyCheckAt = 0;

  /** `headers`: what every provider answer gets (the app's onSend hook does not run for hijacked replies). */
  constructor(
    readonly ctx: AppContext,
    private readonly headers: Record<string, string> = {},
  ) {
    this.settings = identitySettings(ctx.config.identity);
    this.keys = new IdpKeys(ctx);
    this.verifier = new TokenVerifier(this);
  }

  async init(): Promise<void> {
    this.keySet = await this.keys.load();
    this.payloadCrypto = new PayloadCrypto(await this.keys.derive('oidc-payload-id'), await this.keys.derive('oidc-payload-seal'));
    this.throttle = new SigninThrottle(this.ctx.db, await this.keys.derive('throttle'), this.settings.throttle);
    // Its own key: a challenge handed out for a submission is no sign-in proof, nor the reverse.
    this.signinPow = new ProofOfWork(await this.keys.derive('signin-pow'), this.ctx.db, { difficulty: this.settings.throttle.powDifficulty, ttlSeconds: 30 * 60 });
    // Make the dummy hash now, so the first unknown case number costs what every later one does.
    await this.ctx.passwords.verifyNothing('warm-up');
  }

  get currentKeys(): KeySet {
    return this.keySet;
  }

  /** Rotates the signing key: new tokens use the new key; tokens of the old one keep verifying. */
  async rotateSigningKey(): Promise<string> {
    const kid = await this.keys.rotateSigningKey();
    await this.reloadKeys();
    return kid;
  }

  /** Re-reads the keys (another process may have rotated them) and rebuilds providers when they changed. */
  async reloadKeys(): Promise<boolean> {
    const next = await this.keys.load();
    this.keyCheckAt = Date.now();
    if (next.version === this.keySet.version) return false;
    this.keySet = next;
    this.providers.clear();
    return true;
  }

  private async maybeReloadKeys(): Promise<void> {
    if (Date.now() - this.keyCheckAt < 60_000) return;
    this.keyCheckAt = Date.now();
    if ((await this.keys.version()) !== this.keySet.version) await this.reloadKeys();
  }

  /** The portal origin a request came to (the public URL when one is configured). */
  originOf(req: FastifyRequest): string {
    if (this.ctx.config.publicUrl) return new URL(this.ctx.config.publicUrl).origin;
    return `${req.protocol}://${req.host}`;
  }

  issuerOf(req: FastifyRequest): string {
    return `${this.originOf(req)}${MOUNT}`;
  }

  /** Every issuer this portal answers as has this shape; the host must be a company's. */
  async isOwnIssuer(iss: string): Promise<boolean> {
    if (this.ctx.config.publicUrl) return iss === `${new URL(this.ctx.config.publicUrl).origin}${MOUNT}`;
    let u: URL;
    try {
      u = new URL(iss);
    } catch {
      return false;
    }
    if (u.pathname !== MOUNT || u.search || u.hash || !/^https?:$/.test(u.protocol) || iss !== `${u.origin}${MOUNT}`) return false;
    return !!(await companyByHost(this.ctx.db, u.host));
  }

  async providerFor(req: FastifyRequest): Promise<CachedProvider> {
    await this.maybeReloadKeys();
    const issuer = this.issuerOf(req);
    let cached = this.providers.get(issuer);
    if (cached) return cached;
    const company = await companyByHost(this.ctx.db, req.host ?? '');
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No company is served on this host.');
    bindCompany(req, company.id);
    cached = this.providers.get(issuer);
    if (cached) return cached;
    if (this.providers.size >= MAX_PROVIDERS) this.providers.delete(this.providers.keys().next().value!);
    const provider = createProvider(this.ctx, issuer, this.keySet, this.settings, {
      logoutSource: (kctx, form) => this.renderKoa(kctx, 200, async (f) => {
        const hint = kctx.oidc.entities.IdTokenHint;
        // Confirm at once only when the portal itself asked (a valid id_token_hint of this session).
        const auto = hint && hint.payload?.sub === kctx.oidc.session.accountId;
        // The confirmation's answer page must speak the same language: it travels
        // with the form (and the provider's redirect, see provider.ts).
        return logoutPage(f, form.replace(/action="([^"?]*)"/, `action="$1?ui_locales=${htmlLang(f.lang)}"`), !!auto);
      }),
      postLogoutSuccessSource: (kctx) => this.renderKoa(kctx, 200, async (f) => loggedOutPage(f)),
      nothingToSignOut: (kctx, form) => this.renderKoa(kctx, 200, async (f) => nothingToSignOutPage(f, form)),
      userinfo: (token, iss) => this.verifier.userinfo(token, iss),
      signedOut: (caseId) => this.endSessionsOf(caseId),
      renderError: async (kctx, out) => {
        const status = kctx.status && kctx.status >= 400 ? kctx.status : 400;
        // A person in a browser gets our page; a program that asks for JSON gets the OAuth error body.
        if (kctx.accepts(['html', 'json']) === 'json') {
          kctx.status = status;
          kctx.body = { error: out.error ?? 'invalid_request', ...(out.error_description ? { error_description: out.error_description } : {}) };
          return;
        }
        return this.renderKoa(kctx, status, async (f) => errorPage(f, out.error_description ?? out.error));
      },
    }, this.payloadCrypto);
    cached = { provider, callback: provider.callback() };
    this.providers.set(issuer, cached);
    return cached;
  }

  private async frameFor(host: string, uiLocales?: string | null): Promise<PageFrame> {
    const company = await companyByHost(this.ctx.db, host);
    const lang = pickLanguage(uiLocales, company?.settings.languages ?? [], company?.settings.defaultLanguage ?? 'da');
    return frame(company, lang);
  }

  private async renderKoa(kctx: KoaCtx, status: number, render: (f: PageFrame) => Promise<string>): Promise<void> {
    const uiLocales = kctx.oidc?.params?.ui_locales ?? kctx.query?.ui_locales;
    const asked = typeof uiLocales === 'string' && uiLocales.trim() ? uiLocales : acceptLanguageTags(kctx.get('accept-language'));
    const f = await this.frameFor(kctx.host ?? '', asked);
    kctx.type = 'html';
    kctx.status = status;
    kctx.body = await render(f);
  }

  // ---- sign-in -------------------------------------------------------------

  /**
   * One attempt with a case number and what proves the password (issue 37): the
   * page's `verifier`, derived in the browser with the case's salt and kdf
   * (`kdfFor`); or, the weaker path of scripted clients, the plain `password`, from
   * which the server derives the same verifier. A case made before verifiers
   * (`legacy`) is checked against its password hash once and then holds the verifier
   * the page derived with a fresh salt (`next`), or one the server derives. The same
   * work and answer whatever fails, except that a paused sign-in says for how long
   * (`pausedMs`): the pause follows the failures sent at the typed number, known or
   * not, so it tells nothing about the case.
   */
  async checkCredentials(
    company: Company,
    caseNumberInput: string,
    proof: SignInProof,
    clientAddress?: string,
  ): Promise<{ caseId: string; mustChange: boolean } | { refused: true; pausedMs: number }> {
    const caseNumber = normalizeCaseNumber(caseNumberInput);
    const attempt: Attempt = await this.throttle.begin(company.id, caseNumber, clientAddress);
    const row = CASE_NUMBER.test(caseNumber)
      ? await this.ctx.db
          .selectFrom('report_case')
          .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
          .select(['report_case.id', 'case_account.password_hash', 'case_account.must_change_password', 'case_account.salt', 'case_account.kdf'])
          .where('report_case.case_number', '=', caseNumber)
          .where('report_case.company_id', '=', company.id)
          .executeTakeFirst()
      : undefined;
    if (attempt.delayMs > 0) await sleep(attempt.delayMs);
    const passwords = this.ctx.passwords;
    let ok = false;
    let upgrade: { passwordHash: string; salt: Buffer; kdf: Kdf } | undefined;
    // A server-keyed case being migrated (server/keys/migrate-wraps.ts) whose reporter has no wrap yet: a sign-in
    // that sends the password gives the server, once, what derives the reporter key.
    let reporterKey: CryptoKey | null = null;
    const wantsWrap = async () => !!row && proof.password !== undefined && (await needsReporterWrap(this.ctx, row.id));
    if (row && row.kdf && row.salt) {
      let verifier = proof.verifier ?? '';
      if (!proof.verifier && proof.password !== undefined) {
        const kdf = JSON.parse(row.kdf) as Kdf;
        if (await wantsWrap()) ({ verifier, reporterKey } = await serverReporterKeys(caseNumber, proof.password, row.salt, kdf));
        else verifier = await serverVerifier(caseNumber, proof.password, row.salt, kdf);
      }
      ok = await passwords.verify(row.password_hash, verifier);
    } else if (row) {
      // legacy: only the plain password opens it, once.
      ok = proof.password !== undefined && (await passwords.verify(row.password_hash, proof.password));
      if (ok) {
        const salt = proof.next?.salt ?? newSalt();
        const kdf = proof.next?.kdf ?? DEFAULT_KDF;
        let verifier = proof.next?.verifier;
        if (await wantsWrap()) {
          const derived = await serverReporterKeys(caseNumber, proof.password!, salt, kdf);
          // The page's own derivation decides; a wrap to a key it would not derive again would open nothing.
          if (!verifier || verifier === derived.verifier) reporterKey = derived.reporterKey;
          verifier ??= derived.verifier;
        }
        verifier ??= await serverVerifier(caseNumber, proof.password!, salt, kdf);
        upgrade = { passwordHash: await passwords.hash(verifier), salt, kdf };
      }
    } else {
      // Unknown: the work a known case costs, the look-alike salt and the default derivation.
      const verifier = proof.verifier ?? (proof.password !== undefined && CASE_NUMBER.test(caseNumber) ? await serverVerifier(caseNumber, proof.password, passwords.lookAlikeSalt(company.id, caseNumber), DEFAULT_KDF) : '');
      ok = await passwords.verifyNothing(verifier);
    }
    if (!ok || attempt.blocked || !row) {
      this.ctx.metrics?.signInFailed('reporter', company.id);
      return { refused: true, pausedMs: await this.throttle.failure(attempt) };
    }
    await this.throttle.success(attempt);
    await this.ctx.db
      .updateTable('case_account')
      .set({ last_login_at: new Date(), ...(upgrade ? { password_hash: upgrade.passwordHash, salt: upgrade.salt, kdf: kdfText(upgrade.kdf) } : {}) })
      .where('case_id', '=', row.id)
      .execute();
    if (reporterKey) {
      try {
        await addReporterWrap(this.ctx, row.id, reporterKey);
      } catch (err) {
        // The sign-in stands; the wrap waits for the next sign-in with the password. The message only, no case data.
        this.ctx.log.error({ err: { message: (err as Error).message } }, 'could not wrap a legacy case key to its reporter');
      }
    }
    return { caseId: row.id, mustChange: !!row.must_change_password };
  }

  /**
   * What the sign-in page (and a scripted client) derives with, for a typed case
   * number (issue 37): the case's salt and kdf; for an unknown number, a salt derived
   * from the number under a server key and the default kdf, so the two answers look
   * alike. Both look the case up the same way and compute the look-alike salt.
   */
  async kdfFor(company: Company, caseNumberInput: string): Promise<{ salt: string; kdf: AnsweredKdf }> {
    const caseNumber = normalizeCaseNumber(caseNumberInput);
    const row = CASE_NUMBER.test(caseNumber)
      ? await this.ctx.db
          .selectFrom('report_case')
          .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
          .select(['case_account.salt', 'case_account.kdf'])
          .where('report_case.case_number', '=', caseNumber)
          .where('report_case.company_id', '=', company.id)
          .executeTakeFirst()
      : undefined;
    const lookAlike = this.ctx.passwords.lookAlikeSalt(company.id, caseNumber);
    if (row?.salt && row.kdf) return { salt: Buffer.from(row.salt).toString('base64url'), kdf: kdfOf(row.kdf) };
    return { salt: lookAlike.toString('base64url'), kdf: row ? kdfOf(null) : DEFAULT_KDF };
  }

  /** A challenge for the sign-in form while the company sees a burst of failed sign-ins; none otherwise. */
  async signInChallenge(company: Company): Promise<PowChallenge | undefined> {
    if (!this.signinPow.enabled || !(await this.throttle.isBurst(company.id))) return undefined;
    this.ctx.metrics?.signInPowDemanded(company.id);
    return this.signinPow.issue();
  }

  /**
   * During a burst, whether the form carried a solved, unspent challenge (`pow`).
   * Checked before the throttle counts anything or a password is hashed, so a
   * refused post costs the server next to nothing.
   */
  async hasSignInProof(company: Company, proof: unknown): Promise<boolean> {
    if (!this.signinPow.enabled || !(await this.throttle.isBurst(company.id))) return true;
    try {
      await this.signinPow.spend(typeof proof === 'string' ? proof : undefined);
      return true;
    } catch (err) {
      if (err instanceof HttpError) return false;
      throw err;
    }
  }

  /**
   * Ends every sign-in of a case, on every device (sign-out, password change
   * requested): sessions, grants, codes and refresh tokens, and, by moving the
   * account's token generation on, every access token already issued.
   */
  async endSessionsOf(caseId: string): Promise<void> {
    await this.ctx.db
      .updateTable('case_account')
      .set((eb) => ({ token_generation: eb('token_generation', '+', 1) }))
      .where('case_id', '=', caseId)
      .execute();
    await destroyAccountPayloads(this.ctx.db, this.payloadCrypto, caseId);
  }

  async sweep(): Promise<void> {
    try {
      const deleted = await sweepExpiredAccounts(this.ctx.db, this.settings.accountExpiryDays);
      if (deleted > 0) this.ctx.log.info({ deleted }, 'expired follow accounts deleted');
      await sweepExpiredPayloads(this.ctx.db);
      await this.throttle.sweep();
      await this.ctx.db.deleteFrom('idp_password_change').where('expires_at', '<', new Date()).execute();
    } catch (err) {
      this.ctx.log.error({ err: { message: (err as Error).message } }, 'identity sweep failed');
    }
  }

  // ---- Fastify routes ------------------------------------------------------

  register(app: FastifyInstance): void {
    const service = this;

    // Nothing the identity side answers is kept by a browser or proxy cache: pages,
    // refusals and assets alike (issue 11, finding 11). The provider's own (Koa)
    // answers get the same in provider.ts.
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.url.startsWith('/idp/')) reply.header('cache-control', 'no-store');
      return payload;
    });

    // Another provider takes over sign-in: the SPA is told its issuer (docs/identity.md).
    const external = service.settings.externalIssuer;
    if (external) {
      app.addHook('onSend', async (req, reply, payload) => {
        if (req.url.split('?')[0] !== '/config/config.json' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
        const body = JSON.parse(payload) as { idSettings?: Record<string, unknown> };
        body.idSettings = { ...body.idSettings, authority: external };
        return JSON.stringify(body);
      });
    }

    // Operator: rotate the signing key (npm run identity -- rotate-signing-key). Loopback and admin token only.
    app.post('/api/admin/identity/rotate-signing-key', async (req, reply) => {
      await authorize(service.ctx, req, 'operator');
      const kid = await service.rotateSigningKey();
      return reply.status(201).send({ kid });
    });

    // The provider's own endpoints: raw request to Koa. No body parsing here.
    void app.register(async (inst) => {
      inst.removeAllContentTypeParsers();
      inst.addContentTypeParser('*', (_req, _payload, done) => done(null));
      const handler = async (req: FastifyRequest, reply: FastifyReply) => {
        const { callback } = await service.providerFor(req);
        reply.hijack();
        const raw = req.raw as typeof req.raw & { originalUrl?: string };
        raw.originalUrl = raw.url;
        raw.url = (raw.url ?? '/').slice(MOUNT.length) || '/';
        for (const [k, v] of Object.entries(service.headers)) reply.raw.setHeader(k, v);
        callback(raw, reply.raw);
      };
      inst.all(`${MOUNT}/*`, handler);
    });

    // Assets of our pages (same origin; no inline script or style anywhere).
    app.get(`${MOUNT}/assets/idp.css`, async (_req, reply) => reply.type('text/css; charset=utf-8').send(IDP_CSS));
    app.get(`${MOUNT}/assets/logout.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(LOGOUT_JS));
    app.get(`${MOUNT}/assets/password.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(PASSWORD_JS));
    app.get(`${MOUNT}/assets/signin.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(SIGNIN_JS));
    app.get(`${MOUNT}/assets/derive.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(DERIVE_JS));
    app.get(`${MOUNT}/assets/argon2.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(ARGON2_JS));
    app.get(`${MOUNT}/assets/quick-exit.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(QUICK_EXIT_JS));
    app.get(`${MOUNT}/assets/signin-pow.worker.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(SIGNIN_POW_WORKER_JS));
    app.get<{ Params: { file: string } }>(`${MOUNT}/assets/noble/:file`, async (req, reply) => {
      const js = NOBLE_MODULES.get(req.params.file);
      if (js === undefined) throw new HttpError(404, 'NOT_FOUND', `No such resource: ${req.method} ${req.url.split('?')[0]}`);
      return reply.type('text/javascript; charset=utf-8').send(js);
    });
    app.get(`${MOUNT}/assets/theme.css`, async (req, reply) => {
      const company = await companyByHost(service.ctx.db, req.host ?? '');
      const c = company?.settings.siteColors;
      const safe = (v: string | undefined, d: string) => (v && /^#[0-9a-fA-F]{6}$/.test(v) ? v : d);
      const css = `:root { --wb-primary: ${safe(c?.primaryColorCode, '#172a55')}; --wb-secondary: ${safe(c?.secondaryColorCode, '#ecf1f5')}; }\n`;
      return reply.type('text/css; charset=utf-8').send(css);
    });

    // The salt and derivation for a typed case number (issue 37; kdfFor). A POST, so the
    // number is in no URL; JSON or a form. Per client, a budget of its own.
    const kdfKey = createHash('sha256').update('wb:signin-kdf').update(service.ctx.recordKey).digest();
    app.post(`${MOUNT}/signin/kdf`, {
      config: {
        rateLimit: {
          max: service.ctx.config.signinKdfRateLimit.max,
          timeWindow: service.ctx.config.signinKdfRateLimit.windowSeconds * 1000,
          keyGenerator: (req: FastifyRequest) => `signin-kdf:${createHmac('sha256', kdfKey).update(normalizeIP(req.ip)).digest('base64url')}`,
        },
      },
    }, async (req, reply) => {
      const company = await companyByHost(service.ctx.db, req.host ?? '');
      if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No company is served on this host.');
      bindCompany(req, company.id);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const caseNumber = typeof body.caseNumber === 'string' ? body.caseNumber.slice(0, 300) : '';
      if (!caseNumber.trim()) throw new HttpError(400, 'VALIDATION', 'Send the case number as caseNumber.', 'caseNumber');
      return reply.header('cache-control', 'no-store').send(await service.kdfFor(company, caseNumber));
    });

    // Our interaction pages: form posts.
    void app.register(async (inst) => {
      inst.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });

      inst.get<{ Params: { uid: string } }>(`${MOUNT}/interaction/:uid`, async (req, reply) => {
        const it = await service.interaction(req, reply);
        if (!it) return reply;
        const pending = await service.pendingPasswordChange(it.uid);
        if (pending) return service.sendPage(reply, 200, await service.passwordPage(it.frame, `${MOUNT}/interaction/${it.uid}/password${it.q}`, pending.case_id));
        const pow = await service.signInChallenge(it.company);
        return service.sendPage(reply, 200, signInPage(it.frame, `${MOUNT}/interaction/${it.uid}/login${it.q}`, undefined, { pow }));
      });

      inst.post<{ Params: { uid: string }; Body: Record<string, string> }>(`${MOUNT}/interaction/:uid/login`, async (req, reply) => {
        const it = await service.interaction(req, reply);
        if (!it) return reply;
        const body = (req.body ?? {}) as Record<string, unknown>;
        const caseNumber = typeof body.caseNumber === 'string' ? body.caseNumber.slice(0, 300) : '';
        // The page sends the verifier (its script derived it); a scripted client may send the password (issue 37).
        const password = typeof body.password === 'string' ? body.password.slice(0, LIMITS.passwordMax + 1) : '';
        const proof = signInProof(body);
        const action = `${MOUNT}/interaction/${it.uid}/login${it.q}`;
        // The typed case number stays in its field: only the password is typed again.
        const again = async (error: string, keep?: string) =>
          service.sendPage(reply, 400, signInPage(it.frame, action, error, { caseNumber: keep, pow: await service.signInChallenge(it.company) }));
        if (!caseNumber.trim() || (!password && !proof.verifier)) return again(it.frame.t(proof.malformed ? 'signin.error.invalid' : 'signin.error.required'), caseNumber);
        // During a burst, no proof no attempt: the reporter keeps the typed case number.
        if (!(await service.hasSignInProof(it.company, body.pow))) return again(it.frame.t('signin.error.pow'), caseNumber);
        // The client's address only feeds the throttle's keyed hash (never stored or logged).
        const result = await service.checkCredentials(it.company, caseNumber, { ...proof, password: password || undefined }, req.ip);
        if ('refused' in result) {
          const error = result.pausedMs > 0
            ? it.frame.t('signin.error.paused', { minutes: String(Math.max(1, Math.ceil(result.pausedMs / 60_000))) })
            : it.frame.t('signin.error.invalid');
          return again(error, caseNumber);
        }
        if (result.mustChange) {
          await service.ctx.db
            .insertInto('idp_password_change')
            .values({ interaction_uid: service.payloadCrypto.interactionKey(it.uid), case_id: result.caseId, expires_at: new Date(Date.now() + PASSWORD_STEP_MS) })
            .onConflict((oc) => oc.column('interaction_uid').doUpdateSet({ case_id: result.caseId, expires_at: new Date(Date.now() + PASSWORD_STEP_MS) }))
            .execute();
          return service.sendPage(reply, 200, await service.passwordPage(it.frame, `${MOUNT}/interaction/${it.uid}/password${it.q}`, result.caseId));
        }
        return service.finishLogin(req, reply, it.provider, result.caseId);
      });

      inst.post<{ Params: { uid: string }; Body: Record<string, string> }>(`${MOUNT}/interaction/:uid/password`, async (req, reply) => {
        const it = await service.interaction(req, reply);
        if (!it) return reply;
        const pending = await service.pendingPasswordChange(it.uid);
        if (!pending) {
          const pow = await service.signInChallenge(it.company);
          return service.sendPage(reply, 400, signInPage(it.frame, `${MOUNT}/interaction/${it.uid}/login${it.q}`, it.frame.t('password.error.expired'), { pow }));
        }
        const body = (req.body ?? {}) as Record<string, unknown>;
        const action = `${MOUNT}/interaction/${it.uid}/password${it.q}`;
        const refuse = async (error: string, code?: string) => service.sendPage(reply, 400, await service.passwordPage(it.frame, action, pending.case_id, it.frame.t(error), code));
        // A sealed case (issue 37): its data key is re-wrapped by the page under the new
        // reporter key, and those wraps replace the old ones in the same transaction.
        const sealed = await reporterWrapsOf(service.ctx, pending.case_id);
        let rewraps: ReporterRewrap[] | null = null;
        // The page's script checked length and confirmation and derived the new keys
        // with a fresh salt (issue 37): what comes is the new verifier, salt and kdf.
        // A scripted client may send the plain new password instead (the weaker path).
        let secret: { passwordHash: string; salt: Buffer; kdf: Kdf };
        // A server-keyed case being migrated: the plain path derives the new reporter key and its wrap is made again after the swap.
        let reporterKey: CryptoKey | null = null;
        if (typeof body.verifier === 'string') {
          let parsed: { verifier: string; salt: Buffer; kdf: Kdf };
          try {
            parsed = { verifier: parseVerifier(body.verifier), salt: parseSalt(body.salt), kdf: parseKdf(body.kdf) };
          } catch (err) {
            if (!(err instanceof HttpError)) throw err;
            return refuse('password.error.derive', err.code);
          }
          if (sealed) {
            try {
              rewraps = parseRewraps(body.wraps);
            } catch (err) {
              if (!(err instanceof HttpError)) throw err;
              return refuse('password.error.rewrap', err.code);
            }
          }
          secret = { passwordHash: await service.ctx.passwords.hash(parsed.verifier), salt: parsed.salt, kdf: parsed.kdf };
        } else {
          // The server never holds a sealed case's data key: without the page's re-wrap the new password would open nothing.
          if (sealed) return refuse('password.error.sealed', 'REWRAP_REQUIRED');
          const next = typeof body.newPassword === 'string' ? body.newPassword : '';
          const again = typeof body.confirmPassword === 'string' ? body.confirmPassword : '';
          let error: string | undefined;
          if ([...next].length < LIMITS.passwordMin) error = 'password.error.min';
          else if ([...next].length > LIMITS.passwordMax) error = 'password.error.max';
          else if (next !== again) error = 'password.error.mismatch';
          const caseNumber = await service.caseNumberOf(pending.case_id);
          if (error) return refuse(error);
          const salt = newSalt();
          let verifier: string;
          if (await isMigrating(service.ctx, pending.case_id)) ({ verifier, reporterKey } = await serverReporterKeys(caseNumber, next, salt, DEFAULT_KDF));
          else verifier = await serverVerifier(caseNumber, next, salt, DEFAULT_KDF);
          secret = { passwordHash: await service.ctx.passwords.hash(verifier), salt, kdf: DEFAULT_KDF };
        }
        // One transaction swaps verifier, salt and kdf, and a sealed case's reporter wraps with them.
        try {
          await service.ctx.db.transaction().execute(async (trx) => {
            if (rewraps) await swapReporterWraps(trx, pending.case_id, rewraps);
            await trx
              .updateTable('case_account')
              .set({ password_hash: secret.passwordHash, salt: secret.salt, kdf: kdfText(secret.kdf), must_change_password: false })
              .where('case_id', '=', pending.case_id)
              .execute();
            await trx.deleteFrom('idp_password_change').where('interaction_uid', '=', service.payloadCrypto.interactionKey(it.uid)).execute();
            // The old reporter key no longer derives: a server-keyed case's wrap to it would be lost at the retirement of the master key.
            await dropStaleReporterWrap(trx, pending.case_id);
          });
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          return refuse('password.error.rewrap', err.code);
        }
        if (reporterKey) {
          try {
            await addReporterWrap(service.ctx, pending.case_id, reporterKey);
          } catch (err) {
            service.ctx.log.error({ err: { message: (err as Error).message } }, 'could not wrap a legacy case key to its reporter');
          }
        }
        return service.finishLogin(req, reply, it.provider, pending.case_id);
      });
    });
  }

  /** The new-password step of `caseId`: its number (the page derives from it) and, for a sealed case, the reporter wraps to re-wrap. */
  async passwordPage(f: PageFrame, action: string, caseId: string, error?: string, code?: string): Promise<string> {
    return newPasswordPage(f, action, error, await this.caseNumberOf(caseId), { sealed: await reporterWrapsOf(this.ctx, caseId), code });
  }

  /** The number of the case a new-password step belongs to: its page derives the new keys from it. */
  async caseNumberOf(caseId: string): Promise<string> {
    const row = await this.ctx.db.selectFrom('report_case').select('case_number').where('id', '=', caseId).executeTakeFirst();
    return row?.case_number ?? '';
  }

  async pendingPasswordChange(uid: string) {
    return this.ctx.db
      .selectFrom('idp_password_change')
      .select(['case_id'])
      .where('interaction_uid', '=', this.payloadCrypto.interactionKey(uid))
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
  }

  sendPage(reply: FastifyReply, status: number, html: string) {
    return reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  }

  /** The interaction of this request, or an error page already sent (null). */
  async interaction(req: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) {
    const company = await companyByHost(this.ctx.db, req.host ?? '');
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No company is served on this host.');
    bindCompany(req, company.id);
    const { provider } = await this.providerFor(req);
    let details: { uid: string; prompt: { name: string }; params: Record<string, unknown>; session?: { accountId?: string } };
    try {
      details = await provider.interactionDetails(req.raw, reply.raw);
    } catch {
      const f = await this.frameFor(req.host ?? '', acceptLanguageTags(req.headers['accept-language']));
      this.sendPage(reply, 400, errorPage(f));
      return null;
    }
    // The language switch's choice (`?ui_locales=` on this page's links and forms) comes first.
    const switched = (req.query as Record<string, unknown> | undefined)?.ui_locales;
    const uiLocales =
      typeof switched === 'string' && switched.trim()
        ? switched
        : typeof details.params.ui_locales === 'string' && details.params.ui_locales.trim()
          ? details.params.ui_locales
          : acceptLanguageTags(req.headers['accept-language']);
    const lang: Language = pickLanguage(uiLocales, company.settings.languages ?? [], company.settings.defaultLanguage ?? 'da');
    const offered = LANGUAGES.filter((l) => !company.settings.languages?.length || company.settings.languages.includes(l));
    const f = frame(company, lang, offered.map((l) => ({ lang: l, href: `${MOUNT}/interaction/${encodeURIComponent(details.uid)}?ui_locales=${htmlLang(l)}` })));
    if (details.uid !== req.params.uid) {
      this.sendPage(reply, 400, errorPage(f));
      return null;
    }
    if (details.prompt.name !== 'login') {
      // Consent is implied for our own client (see loadExistingGrant): finish at once.
      const accountId = details.session?.accountId;
      const grant = new provider.Grant({ accountId, clientId: CLIENT_ID });
      grant.addOIDCScope('openid offline_access');
      grant.addResourceScope(resourceFor(new URL(provider.issuer).origin), RESOURCE_SCOPES);
      const grantId = await grant.save();
      const to = await provider.interactionResult(req.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
      void reply.redirect(to, 303);
      return null;
    }
    // The forms post back in the language the page is shown in (the switch's choice survives an error).
    return { uid: details.uid, company, frame: f, provider, q: `?ui_locales=${htmlLang(lang)}` };
  }

  async finishLogin(req: FastifyRequest, reply: FastifyReply, provider: OidcProvider, caseId: string) {
    if (!isUuid(caseId)) throw new HttpError(400, 'BAD_REQUEST', 'Bad account.');
    const to = await provider.interactionResult(req.raw, reply.raw, { login: { accountId: caseId } }, { mergeWithLastSubmission: false });
    return reply.redirect(to, 303);
  }
}

function frame(company: Company | null, lang: Language, switchTo?: PageFrame['switchTo']): PageFrame {
  return {
    lang,
    t: translator(lang),
    base: MOUNT,
    company: company ? { name: company.name, logoFileName: company.settings.logoFileName } : null,
    switchTo,
  };
}

/** What a sign-in post carries besides the case number (issue 37). */
export interface SignInProof {
  verifier?: string;
  password?: string;
  /** With the password of a legacy case: the verifier the page derived with a fresh salt, kept from now on. */
  next?: { verifier: string; salt: Buffer; kdf: Kdf };
  /** A verifier, salt or kdf was sent but is not one. */
  malformed?: boolean;
}

function signInProof(body: Record<string, unknown>): SignInProof {
  try {
    const verifier = body.verifier === undefined || body.verifier === '' ? undefined : parseVerifier(body.verifier);
    const next = typeof body.newVerifier === 'string' && body.newVerifier ? { verifier: parseVerifier(body.newVerifier), salt: parseSalt(body.newSalt), kdf: parseKdf(body.newKdf) } : undefined;
    return { verifier, next };
  } catch (err) {
    if (err instanceof HttpError) return { malformed: true };
    throw err;
  }
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Mounts the provider, its pages and sweeps on the app; the private API verifies tokens with the result. */
export async function registerIdentity(app: FastifyInstance, ctx: AppContext, headers: Record<string, string>): Promise<IdentityService> {
  const service = new IdentityService(ctx, headers);
  await service.init();
  service.register(app);
  // Reachable for operators' scripts and tests (key rotation): `app.identity`.
  app.decorate('identity', service);
  await service.sweep();
  const timer = setInterval(() => void service.sweep(), service.settings.sweepIntervalMs);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return service;
}

