/** Hands a fetched file to the browser as a download named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has started reading the blob by now; the URL only has to outlive that.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
