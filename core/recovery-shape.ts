/**
 * A key recovery code's typed shape: seven groups of four symbols with one dash or space
 * between groups, or its 28 symbols unbroken. Shared by the workspace's sign-in and unlock
 * (which read such a secret as a code) and the enrolment chart (which refuses it as a
 * password, since it would be read as a code and never sign in). No imports: the
 * machines use it.
 */
const RECOVERY_SHAPE = /^(?:[0-9a-z]{4}(?:[-\s][0-9a-z]{4}){6}|[0-9a-z]{28})$/i;

export function hasRecoveryCodeShape(secret: string): boolean {
  return RECOVERY_SHAPE.test(secret.trim());
}
