// Owns the error of a sign-in that cannot go on.

/** A sign-in that cannot go on; the message says why, for the person. */
export class OAuthError extends Error {
  constructor(message, details = {}) {
    super(message);
    this.name = 'OAuthError';
    this.authFailed = true;
    Object.assign(this, details);
  }
}
