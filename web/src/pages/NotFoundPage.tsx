import { useEffect } from 'react';
import { MessagePage } from '../components/MessagePage.tsx';

export function NotFoundPage() {
  useEffect(() => {
    document.title = 'Page not found · Scheduling';
  }, []);
  return (
    <MessagePage title="Page not found">
      <p>There is nothing at this address. Check the link you followed, or go to your dashboard.</p>
      <p>
        <a className="btn" href="/app">
          Dashboard
        </a>
      </p>
    </MessagePage>
  );
}
