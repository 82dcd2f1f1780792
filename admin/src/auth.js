// Sign-in for a secured API: the bearer token `apidsl token` prints, kept in sessionStorage (for this browser
// tab's session), sent on every request; a 401 forgets it and returns to the sign-in page. The token is all the
// admin knows of the user: the server decides what it may do.
const KEY = 'apidsl.admin.token';

export const storedToken = () => sessionStorage.getItem(KEY);

/** The headers of every request: `Authorization: Bearer …` once signed in. */
export const authHeaders = () => {
  const token = storedToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
};

export const authProvider = {
  login: ({ token }) => {
    const trimmed = String(token ?? '').trim();
    if (!trimmed) return Promise.reject(new Error('Paste a bearer token.'));
    sessionStorage.setItem(KEY, trimmed);
    return Promise.resolve();
  },
  logout: () => {
    sessionStorage.removeItem(KEY);
    return Promise.resolve();
  },
  checkAuth: () => (storedToken() ? Promise.resolve() : Promise.reject(new Error('Sign in with a bearer token.'))),
  checkError: (error) => {
    if (error?.status === 401) {
      sessionStorage.removeItem(KEY);
      return Promise.reject(new Error('The token was refused (401): sign in again.'));
    }
    return Promise.resolve();
  },
  getPermissions: () => Promise.resolve(),
};
