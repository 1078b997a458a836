#pragma once

// CUPTI activity records into the record file's records (capture/CuptiRecords.h), and the buffer
// callbacks CUPTI hands its records to.

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace stepscope::capture::injection {

// CUPTI's buffer callbacks (cuptiActivityRegisterCallbacks): 8 MiB buffers; each completed one is
// converted and written as one zstd frame at once.
void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords);
void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t size,
                              size_t validSize);

} // namespace stepscope::capture::injection
