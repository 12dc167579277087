//! Reading GPU buffers back, the same way natively and in the browser: copy into a mappable buffer,
//! map it asynchronously, await the callback — several buffers in one round trip.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A one-shot slot the map callback fills and a future awaits.
#[derive(Default)]
struct Slot {
    result: Option<Result<(), wgpu::BufferAsyncError>>,
    waker: Option<Waker>,
}

struct MapFuture(Arc<Mutex<Slot>>);

impl Future for MapFuture {
    type Output = Result<(), wgpu::BufferAsyncError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.0.lock().unwrap();
        match slot.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// The bytes of `source[..size]`.
pub async fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    size: u64,
) -> Result<Vec<u8>, String> {
    let mut read = read_buffers(device, queue, &[(source, size)]).await?;
    Ok(read.pop().unwrap_or_default())
}

/// The bytes of each `source[..size]`, in one round trip: all copied into one mappable buffer, mapped
/// once (a page reading a state of several buffers back waits for one map, not one per buffer).
/// Sizes must be multiples of 4 bytes (`wgpu::COPY_BUFFER_ALIGNMENT`), as every solver buffer's are.
pub async fn read_buffers(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    sources: &[(&wgpu::Buffer, u64)],
) -> Result<Vec<Vec<u8>>, String> {
    let total: u64 = sources.iter().map(|(_, size)| *size).sum();
    if total == 0 {
        return Ok(vec![Vec::new(); sources.len()]);
    }
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: total,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("readback"),
    });
    let mut offset = 0;
    for (source, size) in sources {
        if *size > 0 {
            encoder.copy_buffer_to_buffer(source, 0, &staging, offset, *size);
        }
        offset += size;
    }
    queue.submit([encoder.finish()]);
    let slot = Arc::new(Mutex::new(Slot::default()));
    let filled = slot.clone();
    staging.map_async(wgpu::MapMode::Read, .., move |result| {
        let mut slot = filled.lock().unwrap();
        slot.result = Some(result);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    });
    // Natively the callback runs inside poll; in the browser the event loop runs it.
    #[cfg(not(target_arch = "wasm32"))]
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("waiting for the GPU failed: {e}"))?;
    MapFuture(slot)
        .await
        .map_err(|e| format!("reading back from the GPU failed: {e}"))?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| format!("the read-back buffer could not be mapped: {e}"))?
        .to_vec();
    staging.unmap();
    let mut parts = Vec::with_capacity(sources.len());
    let mut at = 0;
    for (_, size) in sources {
        let end = at + *size as usize;
        parts.push(bytes[at..end].to_vec());
        at = end;
    }
    Ok(parts)
}

/// The `u32` values of `source[..len]` (none for `len` 0, without touching the device).
pub async fn read_u32s(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    len: usize,
) -> Result<Vec<u32>, String> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let bytes = read_buffer(device, queue, source, len as u64 * 4).await?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}
