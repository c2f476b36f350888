package org.example.textkit;

public final class Hex {

    public static String encode(byte[] bytes) {
        String hex = "";
        for (byte b : bytes) {
            hex += String.format("%02x", b);
        }
        return hex;
    }
}
