import { QhatuApiError, type QhatuClient } from '@qhatu/client';

/** Sends the bytes to a signed upload address, reporting the share sent so far (fetch cannot report an upload's progress). */
function put(url: string, file: File, contentType: string, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.setRequestHeader('content-type', contentType);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve();
      let error: { code?: string; message?: string } = {};
      try {
        error = (JSON.parse(request.responseText) as { error?: typeof error }).error ?? {};
      } catch {
        // Object storage answers in XML: the status says enough.
      }
      const message = error.message ?? `The upload was refused (${request.status})`;
      reject(new QhatuApiError<string>({ status: request.status, code: error.code ?? `HTTP_${request.status}`, message, method: 'PUT', url }));
    };
    request.onerror = () => reject(new Error('The upload could not reach the storage'));
    request.send(file);
  });
}

/** The store's two-step signed upload: the file is announced, its bytes sent to the signed address, then confirmed. */
export async function uploadFile(client: QhatuClient, file: File, onProgress: (fraction: number) => void) {
  const contentType = file.type || 'application/octet-stream';
  const started = await client.POST('/api/v1/media/upload', { body: { original_name: file.name, content_type: contentType, size_bytes: file.size } });
  await put(started.data.upload_url, file, contentType, onProgress);
  onProgress(1);
  return (await client.POST('/api/v1/media/{id}/confirm', { params: { path: { id: started.data.file_id } } })).data;
}
