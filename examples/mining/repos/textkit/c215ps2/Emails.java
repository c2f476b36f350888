package org.example.textkit;

public final class Emails {

    public static String domain(String address) {
        int at = address.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException(address);
        }
        return address.substring(at + 1);
    }
}
