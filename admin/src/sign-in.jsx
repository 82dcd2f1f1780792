// The sign-in page of a secured API: one field, the bearer token.
import React from 'react';
import { Form, Login, PasswordInput, SaveButton, required, useLogin, useNotify } from 'react-admin';

const TokenForm = () => {
  const login = useLogin();
  const notify = useNotify();
  const submit = ({ token }) => login({ token }).catch((e) => notify(e.message, { type: 'error' }));
  return (
    <Form onSubmit={submit}>
      <div style={{ padding: '0 1em 1em 1em' }}>
        <p style={{ fontFamily: 'sans-serif', fontSize: '0.9em' }}>
          This API needs a bearer token: paste what <code>apidsl token</code> prints.
        </p>
        <PasswordInput source="token" label="Bearer token" validate={required()} fullWidth autoFocus />
        <SaveButton label="Sign in" icon={<span />} fullWidth />
      </div>
    </Form>
  );
};

export const SignIn = () => (
  <Login>
    <TokenForm />
  </Login>
);
