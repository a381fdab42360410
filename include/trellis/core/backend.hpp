// Backend selection: which implementation of a kernel runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trellis {

// reference: scalar oracle; cpu: multithreaded/SIMD; cuda: NVIDIA GPU.
// automatic resolves to cuda when a usable device exists, else cpu.
enum class Backend { automatic, reference, cpu, cuda };

std::string_view to_string(Backend backend) noexcept;

// Parses "auto"/"automatic", "reference"/"ref", "cpu", "cuda"; throws UsageError
// naming the accepted values otherwise.
Backend parse_backend(std::string_view name);

// True when the CUDA backend was compiled into this build.
bool cuda_compiled() noexcept;

// True when CUDA is compiled in and at least one device can be used.
bool cuda_usable();

// Backends that would run right now, in the order reference, cpu, cuda.
std::vector<Backend> available_backends();

// Turns a request into the backend that will run. automatic becomes cuda or
// cpu; cuda without a build or a device throws BackendUnavailable saying which
// (never a silent fallback).
Backend resolve(Backend requested);

}  // namespace trellis
