import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { onQuotaExceeded } from './quota-events';

/** The banner a 402 answer raises anywhere in the workspace: what happened, and what the user can do. */
export function QuotaBanner() {
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => onQuotaExceeded(setMessage), []);
  if (!message) return null;
  return (
    <div className="quota-banner" role="alert" aria-label="Quota reached">
      <p>
        <strong>{message}.</strong> Nothing was created. Delete records you no longer need, or ask an administrator for a
        higher quota. <Link to="/workspace/account">See your quota</Link>
      </p>
      <button type="button" className="button button-small" onClick={() => setMessage(null)}>Dismiss</button>
    </div>
  );
}
